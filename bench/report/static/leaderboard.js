// The web leaderboard's script (report.leaderboard_html): column sorting and the filters. It ranks nothing:
// the ranks, 95% rank ranges and Pareto marks of every view the kind and folder filters offer were computed by
// Python (report.page_views) and are in the page (#views); the script shows the ticked view's. The search box only
// hides rows within a view (it does not re-rank).
function cellValue(row, col) {
  const cell = row.children[col];
  const value = cell ? cell.dataset.value : undefined;
  return value === undefined || value === '' ? null : (isNaN(value) ? value : parseFloat(value));
}
function sortTable(th) {
  const table = th.closest('table'), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const first = th.dataset.first || 'desc';
  const order = th.dataset.order ? (th.dataset.order === 'asc' ? 'desc' : 'asc') : first;
  table.querySelectorAll('th').forEach(h => delete h.dataset.order);
  th.dataset.order = order;
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = cellValue(a, col), y = cellValue(b, col);
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return order === 'asc' ? d : -d;
  });
  rows.forEach(r => body.appendChild(r));
}
function ticked(selector) {
  return Array.from(document.querySelectorAll(selector + ':checked')).map(i => i.value);
}
function currentView() {
  // The key report.page_views.view_key writes: the ticked kinds, '|', the ticked folders (none ticked: all).
  const data = JSON.parse(document.getElementById('views').textContent);
  const key = ticked('input.kind').join(',') + '|' + ticked('input.folder').join(',');
  if (!(key in data.views)) throw new Error(`no view ${key} in the page`);
  return data.data[data.views[key]];
}
function shown(row, kinds, folders, query) {
  return kinds.includes(row.dataset.kind) && (!folders.length || folders.includes(row.dataset.folder))
    && row.dataset.model.toLowerCase().includes(query);
}
function show(cell, pair) {  // pair: [value, text] as Python wrote them, or undefined (not ranked in this view)
  cell.dataset.value = pair ? pair[0] : '';
  cell.textContent = pair ? pair[1] : '';
}
function byName(a, b) {
  return a.dataset.model < b.dataset.model ? -1 : a.dataset.model > b.dataset.model ? 1 : 0;
}
function showOverview(table, ranked) {
  const body = table.tBodies[0];
  Array.from(body.rows).forEach(row => {
    const mine = ranked[row.dataset.model];
    row.querySelectorAll('td[data-rank]').forEach(cell => show(cell, mine && mine.ranks[cell.dataset.rank]));
    show(row.querySelector('td.pareto'), mine && mine.pareto ? [1, 'P'] : [0, '']);
  });
  // Python's order: the rank on the first axis, then the name; the rows this view does not rank last.
  const first = row => cellValue(row, Array.from(row.children).indexOf(row.querySelector('td[data-rank]')));
  Array.from(body.rows).sort((a, b) => {
    const x = first(a), y = first(b);
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    return (x === null ? 0 : x - y) || byName(a, b);
  }).forEach(r => body.appendChild(r));
}
function applyFilters() {
  const group = document.getElementById('group-filter').value;
  document.querySelectorAll('section.group').forEach(s => {
    s.style.display = (group === 'all' || s.dataset.group === group) ? '' : 'none';
  });
  const kinds = ticked('input.kind'), folders = ticked('input.folder');
  const query = document.getElementById('search').value.trim().toLowerCase();
  document.querySelectorAll('tr[data-kind]').forEach(r => {
    r.style.display = shown(r, kinds, folders, query) ? '' : 'none';
  });
  const view = currentView();
  document.querySelectorAll('table.overview-ranked').forEach(table => {
    showOverview(table, view.overviews[table.dataset.benchmark] || {});
    const count = Array.from(table.tBodies[0].rows).filter(r => r.style.display !== 'none').length;
    document.getElementById(table.dataset.count).textContent = `${count} ranked model(s) shown`;
  });
  document.querySelectorAll('section.group').forEach(section => {
    const ranks = view.groups[section.dataset.group] || {};
    section.querySelectorAll('tbody tr').forEach(row => show(row.querySelector('td.rank'), ranks[row.dataset.model]));
  });
}
document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('th').forEach(th => th.addEventListener('click', () => sortTable(th)));
  document.querySelectorAll('#group-filter, input.kind, input.folder')
    .forEach(e => e.addEventListener('change', applyFilters));
  document.getElementById('search').addEventListener('input', applyFilters);
});
