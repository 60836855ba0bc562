"""Labels beside a scatter's points, clear of each other: each label goes to the first free place beside its
point, or, in a cluster too dense for that, farther out with a thin leader line to its point. Shared by every
figure that names its points (the leaderboard's trade-off scatter, the polarity sweep's P-vs-S scatter).
Deterministic: the same points give the same places, so a figure regenerates byte for byte."""

from __future__ import annotations

import math
from collections.abc import Sequence

LABEL_PLACES = ((4, 3, "left"), (4, -9, "left"), (-4, 3, "right"), (-4, -9, "right"), (4, 10, "left"),
                (-4, 10, "right"), (4, -16, "left"), (-4, -16, "right"), (0, 17, "center"), (0, -23, "center"))
"""Where a label may go beside its point, tried in order: (dx, dy) in points from the point, and alignment."""
FIRST_PLACE = LABEL_PLACES[0][:2]


def _ring(radius: int) -> tuple[tuple[int, int, str], ...]:
    """Twelve places on a circle around the point, starting below-right, for labels placed away from it."""
    places = []
    for step in range(12):
        angle = math.radians(-60 + 30 * step)
        dx, dy = radius * math.cos(angle), radius * math.sin(angle)
        align = "center" if abs(dx) < radius / 4 else ("left" if dx > 0 else "right")
        places.append((round(dx), round(dy), align))
    return tuple(places)


FAR_PLACES = tuple(place for radius in (30, 45, 60, 80, 105) for place in _ring(radius))
"""Where a label goes when every place beside its point is taken, each joined to its point by a leader."""
LEADER = {"arrowstyle": "-", "color": "0.6", "lw": 0.5, "shrinkA": 0, "shrinkB": 3}


def spread_labels(figure, labels: list, avoid: Sequence[tuple[object, float, float]] = ()) -> None:
    """Put each label (an `Annotation` in offset points) at the first place, of `LABEL_PLACES` and then
    `FAR_PLACES`, whose box overlaps no label placed before it, no other labelled point's marker and no point
    in `avoid` ((axes, x, y) in data coordinates), and lies in the canvas clear of the other panels (a place
    beside the point) or inside its own axes (a place away from it); the first place when none does. A label
    put away from its point gets a leader line to it (gid `leader:...` for a label whose gid is `label:...`).
    The figure is drawn first, so the boxes are the page's own."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()

    def marker(axes, xy) -> Bbox:  # the 8 x 8 pixels around a point
        x, y = axes.transData.transform(xy)
        return Bbox.from_extents(x - 4, y - 4, x + 4, y + 4)

    def box(label) -> Bbox:  # the text's own box (an Annotation's extent would include its arrow)
        return Text.get_window_extent(label, renderer)

    def within(extent: Bbox, area: Bbox) -> bool:
        return area.contains(extent.x0, extent.y0) and area.contains(extent.x1, extent.y1)

    markers = {id(label): marker(label.axes, label.xy) for label in labels}
    extra = [(axes, marker(axes, (x, y))) for axes, x, y in avoid]
    placed: list = []
    for label in labels:
        others = [markers[id(other)] for other in labels if other is not label and other.axes is label.axes]
        others += [bbox for axes, bbox in extra if axes is label.axes and not bbox.overlaps(markers[id(label)])]
        own = label.axes.get_window_extent(renderer)
        panels = [axes.get_window_extent(renderer) for axes in figure.axes if axes is not label.axes]
        chosen = LABEL_PLACES[0]
        for place in (*LABEL_PLACES, *FAR_PLACES):
            _put(label, place)
            extent = box(label)
            fits = (within(extent, own) if place in FAR_PLACES else
                    within(extent, figure.bbox) and not any(extent.overlaps(panel) for panel in panels))
            if fits and not any(extent.overlaps(other) for other in placed + others):
                chosen = place
                break
        _put(label, chosen)
        if chosen in FAR_PLACES:
            leader = label.axes.annotate("", label.xy, xytext=chosen[:2], textcoords="offset points",
                                         arrowprops=LEADER)
            gid = label.get_gid() or ""
            leader.arrow_patch.set_gid("leader:" + gid.removeprefix("label:") if gid.startswith("label:") else None)
        placed.append(box(label))


def _put(label, place: tuple[int, int, str]) -> None:
    dx, dy, align = place
    label.xyann = (dx, dy)
    label.set_horizontalalignment(align)
