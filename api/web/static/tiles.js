// Tiles: the key a tile goes by on the page, and its face drawn as SVG.
//
// Faces are drawn here rather than shipped as images so any tile, either way round and at
// any size, is one small element the stylesheet can colour (pips by number, selection, drag).
// Every set the server may deal has its faces here: pips for 0 to 9 (double-six and
// double-nine sets), a numeral for 10 and up (a double-twelve set), where pips in a grid of
// four by three would be dots too small to count on a phone.

const SVGNS = "http://www.w3.org/2000/svg";
/** The highest number drawn as pips; above it a half shows its numeral. */
export const MOST_PIPS = 9;
// Pip centres in a 100×100 half, as [across, along] the tile's long axis: a vertical tile
// draws them as (x, y), a horizontal one turned (y, x), so the rows of a six, seven and
// eight run along the tile as on a real domino whichever way it lies.
const LO = 24, MID = 50, HI = 76;
const CORNERS = [[LO, LO], [HI, HI]];
const SPOTS = {
  0: [],
  1: [[MID, MID]],
  2: CORNERS,
  3: [...CORNERS, [MID, MID]],
  4: [...CORNERS, [HI, LO], [LO, HI]],
  5: [...CORNERS, [HI, LO], [LO, HI], [MID, MID]],
  6: [[LO, LO], [LO, MID], [LO, HI], [HI, LO], [HI, MID], [HI, HI]],
  7: [[LO, LO], [LO, MID], [LO, HI], [HI, LO], [HI, MID], [HI, HI], [MID, MID]],
  8: [[LO, LO], [LO, MID], [LO, HI], [HI, LO], [HI, MID], [HI, HI], [MID, LO], [MID, HI]],
  9: [[LO, LO], [LO, MID], [LO, HI], [HI, LO], [HI, MID], [HI, HI], [MID, LO], [MID, HI], [MID, MID]],
};
// more pips share the same half: each a little smaller, so the gaps between them stay visible
const pipRadius = (n) => (n <= 6 ? 9.5 : 8.5);

/** "a-b", as the hand's buttons carry it in `data-tile` and the toasts name it. */
export const tileKey = (t) => `${t[0]}-${t[1]}`;

/** The same tile either way round. */
export const sameTile = (x, y) => (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

function svgEl(name, attrs) {
  const el = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

/** One half's marks, its top-left corner at (dx, dy): pips up to MOST_PIPS, else the numeral. */
function halfMarks(n, dx, dy, vertical) {
  if (n > MOST_PIPS) {
    // as tall as the half allows and squeezed to fit two digits: at the hand's smallest size
    // (22 px a half) the figures are about 14 px high, dark on ivory like the pips
    const text = svgEl("text", { x: dx + 50, y: dy + 52, class: `numeral p${n}`, "text-anchor": "middle",
                                 "dominant-baseline": "central", "font-size": 66, "font-weight": 800,
                                 textLength: 78, lengthAdjust: "spacingAndGlyphs" });
    text.textContent = String(n);
    return [text];
  }
  return SPOTS[n].map(([across, along]) => svgEl("circle", {
    cx: dx + (vertical ? across : along), cy: dy + (vertical ? along : across), r: pipRadius(n), class: `pip p${n}` }));
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
    svg.append(...halfMarks(n, dx, dy, vertical));
  });
  return svg;
}

/** A tile as the page places it: a span holding the face, classed for its orientation. */
export function tileEl(a, b, vertical, extra = "") {
  const el = document.createElement("span");
  el.className = `tile ${vertical ? "tv" : "th"} ${extra}`.trim();
  el.dataset.face = `${a}-${b}`;
  el.append(tileFace(a, b, vertical));
  return el;
}
