// Tiles: the key a tile goes by on the page, and its face drawn as SVG.
//
// Faces are drawn here rather than shipped as images so any tile, either way round and at
// any size, is one small element the stylesheet can colour (pips by number, selection, drag).

const SVGNS = "http://www.w3.org/2000/svg";
// pip centres in a 100×100 half; "v" halves stack along the tile's long axis vertically
const PIPS = {
  0: [], 1: [[50, 50]], 2: [[27, 27], [73, 73]], 3: [[27, 27], [50, 50], [73, 73]],
  4: [[27, 27], [73, 27], [27, 73], [73, 73]], 5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
};
const SIX = { v: [[30, 24], [30, 50], [30, 76], [70, 24], [70, 50], [70, 76]],
              h: [[24, 30], [50, 30], [76, 30], [24, 70], [50, 70], [76, 70]] };

/** "a-b", as the hand's buttons carry it in `data-tile` and the toasts name it. */
export const tileKey = (t) => `${t[0]}-${t[1]}`;

/** The same tile either way round. */
export const sameTile = (x, y) => (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

function svgEl(name, attrs) {
  const el = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

/** A tile face: `a` is the left (or top) half, `b` the right (or bottom) half. */
function tileFace(a, b, vertical) {
  const w = vertical ? 100 : 200, h = vertical ? 200 : 100;
  const svg = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, class: "face", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("rect", { x: 3, y: 3, width: w - 6, height: h - 6, rx: 14, class: "body" }));
  svg.append(vertical ? svgEl("line", { x1: 18, y1: 100, x2: 82, y2: 100, class: "bar" })
                      : svgEl("line", { x1: 100, y1: 18, x2: 100, y2: 82, class: "bar" }));
  [a, b].forEach((n, half) => {
    const dx = vertical ? 0 : half * 100, dy = vertical ? half * 100 : 0;
    const spots = n === 6 ? SIX[vertical ? "v" : "h"] : PIPS[n];
    for (const [x, y] of spots) svg.append(svgEl("circle", { cx: x + dx, cy: y + dy, r: 9.5, class: `pip p${n}` }));
  });
  return svg;
}

/** A tile as the page places it: a span holding the face, classed for its orientation. */
export function tileEl(a, b, vertical, extra = "") {
  const el = document.createElement("span");
  el.className = `tile ${vertical ? "tv" : "th"} ${extra}`.trim();
  el.append(tileFace(a, b, vertical));
  return el;
}
