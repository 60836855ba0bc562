"""Spearman's rho and its exact influence per item, fast enough for SgTS's millions of pairs.

The influences give the pseudo-values of the linearised bootstrap (`evaluation.units`): with them an
interval needs no re-ranking per resample. `sort_order` replaces `argsort` by one SIMD sort of packed keys;
`_midranks` contracts along the sorted order; `_binary_untied_influence` is the low-memory path of a 0/1
gold with untied similarities (docs/tasks.md, "Uncertainty").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def sort_order(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """An ascending order of float64 `values` (as `numpy.argsort`'s; tied values in any order) and whether
    any two values are equal (-0.0 and 0.0 included).

    One SIMD `sort` of packed int64 keys instead of `argsort` (2x faster on SgTS's 8M pairs): each key
    holds the value's order-preserving bits with its b = bit_length(n - 1) lowest bits replaced by the
    item's index, so equal keys cannot occur and the sorted keys carry the order; the few runs of values
    whose keys agree above those b bits (IMDB: 67,000 of 8M) are re-sorted by the exact value, which also
    finds the ties. Falls back to `argsort` beyond 2^32 items."""
    values = np.asarray(values, dtype=np.float64)
    size = len(values)
    bits = max(1, (size - 1).bit_length())
    if bits > 32:
        order = np.argsort(values)
        ordered = values[order]
        return order, bool((ordered[1:] == ordered[:-1]).any())
    keys = np.add(values, 0.0).view(np.int64)  # a fresh copy; + 0.0 turns -0.0 into 0.0
    block = 1 << 16  # built block by block: no full-length temporaries
    index = np.arange(block, dtype=np.int64)
    for start in range(0, size, block):
        part = keys[start:start + block]
        part ^= (part >> 63) & np.int64(0x7FFFFFFFFFFFFFFF)  # negative floats: magnitude bits reversed
        part >>= bits
        part <<= bits
        part |= index[:len(part)] + start
    keys.sort()
    low = 1 << bits
    shared = [np.empty(0, dtype=np.int64)]  # k such that keys k and k + 1 agree above the index bits
    for start in range(0, size - 1, block):
        window = keys[start:start + block + 1]
        difference = window[1:] ^ window[:-1]
        shared.append(np.flatnonzero((difference >= 0) & (difference < low)) + start)
    first_of_pair = np.concatenate(shared)
    positions = np.union1d(first_of_pair, first_of_pair + 1)  # the items in runs, in sorted order
    high = keys[positions] >> bits
    order = np.bitwise_and(keys, low - 1, out=keys)
    if not len(positions):
        return order, False
    items = order[positions]
    exact = values[items]
    regrouped = np.lexsort((exact, high))  # runs stay where they are; inside one, by value
    order[positions] = items[regrouped]
    exact = exact[regrouped]
    same_run = high[1:] == high[:-1]
    return order, bool((same_run & (exact[1:] == exact[:-1])).any())


def _midranks(values: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, Callable[..., np.ndarray]]:
    """Mid-ranks of `values` (the items below plus half the item's tie group, itself included: ranks minus
    1/2, an offset Pearson ignores) and `contract(f, out)` = sum_k a_mk f_k per item m, with a_mk = 1 when
    values[k] > values[m] and 1/2 when tied: the derivative of every item's weighted mid-rank in item m's
    weight, contracted with f (written into `out`, which must not be f). `order` sorts `values`.

    Both are computed along the sorted order (per tie group: a sum, then a suffix sum) and scattered back
    once, with no per-item group index, in buffers reused from call to call. Every f contracted here (ones,
    a 0/1 gold, mid-ranks) holds half-integers, so each sum is exact and does not depend on the order of
    summation."""
    values = np.asarray(values)
    size = len(order)
    work = values[order]  # the sorted values, then the sorted f of each contraction
    starts = np.flatnonzero(np.concatenate([[True], work[1:] != work[:-1]]))
    ties = len(starts) < size
    counts = np.diff(np.append(starts, size)) if ties else None
    along = np.empty(size)  # the contraction in sorted order

    def along_sorted(f_sorted: np.ndarray, half: np.ndarray) -> np.ndarray:
        if ties:
            per_group = np.add.reduceat(f_sorted, starts)
            return np.repeat(per_group.sum() - np.cumsum(per_group) + per_group / 2, counts)
        np.cumsum(f_sorted, out=along)
        np.subtract(f_sorted.sum(), along, out=along)  # the items above
        np.add(along, np.multiply(f_sorted, 0.5, out=half), out=along)  # plus half of itself (x/2 == x*0.5)
        return along

    if ties:
        ranks_sorted = np.subtract(size, along_sorted(np.ones(size), work))
    else:  # item r of the sorted order has mid-rank r + 1/2 (what the formula above gives, exactly)
        ranks_sorted = np.arange(size) + 0.5
    ranks = np.empty(size)
    ranks[order] = ranks_sorted

    def contract(f: np.ndarray, out: np.ndarray) -> np.ndarray:
        if f is ranks:
            f_sorted = ranks_sorted
        else:
            f_sorted = np.take(np.asarray(f, dtype=np.float64), order, out=work)
        out[order] = along_sorted(f_sorted, work)
        return out

    return ranks, contract


def spearman_influence(similarity: np.ndarray, gold: np.ndarray) -> tuple[float, np.ndarray]:
    """Spearman's rho of `similarity` vs `gold` over P items and each item's influence: with item weights
    W_k, rho's derivative in W_k at W = 1, divided by P. A unit's pseudo-value is rho + n_units * (the sum
    of its items' influences), item k carrying the product of its units' weights (`spearman_pseudo_values`).

    The weighted rho is the weighted Pearson correlation of weighted mid-ranks X (of the similarity) and
    Y (of the gold; a 0/1 gold is used as is, an affine map of its ranks), X_k = sum_l W_l a_lk with
    a_lk = 1 below, 1/2 tied. At W = 1 (P items, means over items) its derivative in W_m is, with
    C = cov(X, Y), A = var X, B = var Y and the contractions U_m = sum_k a_mk, V_m = sum_k a_mk Y_k,
    Z_m = sum_k a_mk X_k (`_midranks`; the same with b for Y's ranks: U'_m, T_m = sum_k b_mk X_k,
    Z'_m):
      P dC = X_m Y_m - E[XY] + V_m + T_m - E[Y] (X_m - E[X] + U_m) - E[X] (Y_m - E[Y] + U'_m)
      P dA = X_m^2 - E[X^2] + 2 Z_m - 2 E[X] (X_m - E[X] + U_m)        (dB likewise with Y)
      d rho = dC / sqrt(AB) - rho (dA / A + dB / B) / 2.
    `tests/test_uncertainty.py` checks it against finite differences of a slow weighted Spearman.

    A 0/1 gold and untied similarities (SgTS with a real encoder) take `_binary_untied_influence`, which
    gives `_general_influence`'s bits with a fraction of its memory."""
    gold = np.asarray(gold, dtype=np.float64)
    n = len(gold)
    order, tied = sort_order(similarity)
    binary = bool(((gold == 0.0) | (gold == 1.0)).all())
    if binary and not tied and n < 1 << 26:  # (n + 1)^2 stays exact in float64
        return _binary_untied_influence(order, gold)
    return _general_influence(similarity, gold, order, binary)


def _general_influence(similarity: np.ndarray, gold: np.ndarray, order: np.ndarray,
                       binary: bool) -> tuple[float, np.ndarray]:
    """`spearman_influence` for any similarities and gold (`order` sorts the similarities), operation by
    operation in six reused buffers (x_c, y_c, scratch, d_cov, d_var_x, d_var_y)."""
    n = len(gold)
    x, contract_x = _midranks(similarity, order)
    y, contract_y = (gold, None) if binary else _midranks(gold, sort_order(gold)[0])
    mx, my = x.mean(), y.mean()
    x_c, y_c, scratch = np.subtract(x, mx), np.subtract(y, my), np.empty(n)
    cov = np.mean(np.multiply(x_c, y_c, out=scratch))
    var_x = np.mean(np.multiply(x_c, x_c, out=scratch))  # = x.var(): numpy's var is this mean
    var_y = np.mean(np.multiply(y_c, y_c, out=scratch))
    rho = cov / np.sqrt(var_x * var_y)
    x_c += np.subtract(n, x, out=scratch)  # X_m - E[X] + U_m, U_m = n - X_m: items above m, half its ties
    d_cov = np.multiply(x, y)
    d_cov -= np.mean(d_cov)
    d_cov += contract_x(y, scratch)
    d_cov -= np.multiply(x_c, my, out=scratch)
    d_cov -= np.multiply(y_c, mx, out=scratch)
    d_var_x = np.multiply(x, x)
    d_var_x -= np.mean(d_var_x)
    d_var_x += np.multiply(contract_x(x, scratch), 2, out=scratch)
    d_var_x -= np.multiply(x_c, 2 * mx, out=scratch)
    d_var_y = np.multiply(y, y)
    d_var_y -= np.mean(d_var_y)
    d_var_y -= np.multiply(y_c, 2 * my, out=scratch)
    if contract_y is not None:
        u_y = np.subtract(n, y, out=x_c)  # x_c and y_c are done with
        contracted = contract_y(x, scratch)
        contracted -= np.multiply(u_y, mx, out=y_c)
        d_cov += contracted
        contracted = np.multiply(contract_y(y, scratch), 2, out=scratch)
        contracted -= np.multiply(u_y, 2 * my, out=y_c)
        d_var_y += contracted
    d_var_x /= var_x
    d_var_y /= var_y
    d_var_x += d_var_y
    d_var_x *= rho
    d_var_x /= 2
    per_item = np.divide(d_cov, np.sqrt(var_x * var_y), out=d_cov)
    per_item -= d_var_x
    per_item /= n
    return float(rho), per_item


def _binary_untied_influence(order: np.ndarray, gold: np.ndarray) -> tuple[float, np.ndarray]:
    """`spearman_influence` for a 0/1 gold and untied similarities, to the same bits with two full-length
    float arrays (x, and a scratch array that ends as the result) besides `order`, instead of about ten.

    Item r of the sorted order has mid-rank X = r + 1/2, contraction U = P - X, Z = P^2/2 - (r + 1)^2/2
    + X/2 (the ranks above it plus half its own, exactly) and V = (the gold above it) + Y/2, a running sum
    carried from block to block; all of them are sums of half-integers below 2^53, so exact. The formula
    of `spearman_influence` is then applied block by block in sorted order (the same IEEE operations on
    each item, so the same bits) and scattered back. The means are taken over full arrays in the items'
    own order, like the general path's, because a pairwise sum's bits depend on its order."""
    n = len(gold)
    block = 1 << 16
    steps = np.arange(block) + 0.5
    x = np.empty(n)
    for start in range(0, n, block):
        items = order[start:start + block]
        x[items] = steps[:len(items)] + start
    y = gold
    mx, my = x.mean(), y.mean()
    scratch = np.empty(n)
    gold_bytes = gold.astype(np.uint8)  # gathered in sorted order: 8x less memory to miss in than float64

    def mean_over_blocks(fill: Callable[[slice, np.ndarray], object]) -> float:
        for start in range(0, n, block):
            part = slice(start, start + block)
            fill(part, scratch[part])
        return np.mean(scratch)

    cov = mean_over_blocks(lambda s, out: np.multiply(np.subtract(x[s], mx, out=out), y[s] - my, out=out))
    var_x = mean_over_blocks(lambda s, out: np.square(np.subtract(x[s], mx, out=out), out=out))
    var_y = mean_over_blocks(lambda s, out: np.square(np.subtract(y[s], my, out=out), out=out))
    mean_xy = np.mean(np.multiply(x, y, out=scratch))
    mean_xx = np.mean(np.multiply(x, x, out=scratch))
    mean_yy = np.mean(np.multiply(y, y, out=scratch))
    scale = np.sqrt(var_x * var_y)
    rho = cov / scale
    gold_total, gold_above = y.sum(), 0.0
    per_item = scratch
    u, v, d_cov, tmp = (np.empty(block) for _ in range(4))
    for start in range(0, n, block):
        items = order[start:start + block]
        k = len(items)
        xs, ys = steps[:k] + start, gold_bytes[items].astype(np.float64)
        u_k, v_k, d_cov_k, tmp_k = u[:k], v[:k], d_cov[:k], tmp[:k]
        np.cumsum(ys, out=v_k)  # V: the gold above, plus half its own
        v_k += gold_above
        gold_above = v_k[-1]
        np.subtract(gold_total, v_k, out=v_k)
        v_k += np.multiply(ys, 0.5, out=tmp_k)
        np.subtract(xs, mx, out=u_k)  # X - E[X] + U
        u_k += np.subtract(n, xs, out=tmp_k)
        np.multiply(xs, ys, out=d_cov_k)  # P dC
        d_cov_k -= mean_xy
        d_cov_k += v_k
        d_cov_k -= np.multiply(u_k, my, out=tmp_k)
        d_cov_k -= np.multiply(np.subtract(ys, my, out=tmp_k), mx, out=tmp_k)
        z = np.add(xs, 0.5, out=v_k)  # Z = P^2/2 - (r + 1)^2/2 + X/2
        np.multiply(z, z, out=z)
        z /= 2
        np.subtract(n * n / 2, z, out=z)
        z += np.multiply(xs, 0.5, out=tmp_k)
        d_var_x = np.multiply(xs, xs, out=tmp_k)  # P dA
        d_var_x -= mean_xx
        d_var_x += np.multiply(z, 2, out=z)
        d_var_x -= np.multiply(u_k, 2 * mx, out=z)
        d_var_y = np.multiply(ys, ys, out=u_k)  # P dB
        d_var_y -= mean_yy
        d_var_y -= np.multiply(np.subtract(ys, my, out=z), 2 * my, out=z)
        d_var_x /= var_x
        d_var_y /= var_y
        d_var_x += d_var_y
        d_var_x *= rho
        d_var_x /= 2
        influence = np.divide(d_cov_k, scale, out=d_cov_k)
        influence -= d_var_x
        influence /= n
        per_item[items] = influence
    return float(rho), per_item


def spearman_pseudo_values(similarity: np.ndarray, gold: np.ndarray, first: np.ndarray,
                           second: np.ndarray | None, n_units: int) -> tuple[float, np.ndarray]:
    """Spearman's rho of `similarity` vs `gold` over items k, and its pseudo-values per unit
    (`evaluation.units`), when item k carries weight w[first[k]] * w[second[k]] (units are sentences, items their
    pairs) or w[first[k]] (second None: the items are the units, STS). `spearman_influence` gives the
    per-item derivatives; a unit's derivative sums those of its items."""
    rho, per_item = spearman_influence(similarity, gold)
    per_unit = np.bincount(first, weights=per_item, minlength=n_units)
    if second is not None:
        per_unit += np.bincount(second, weights=per_item, minlength=n_units)
    return rho, rho + n_units * per_unit
