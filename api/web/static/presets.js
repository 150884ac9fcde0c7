// The rule presets and computer levels the page offers: the ONE place the page lists them.
//
// They mirror the server's presets (api/rules/ruleset.py) and bot levels (api/bots). When the
// API serves these lists, this module is the only one to change: the form, the seat menus and
// the table's heading all read them from here.

/** The server's preset names, in the order the Rules menu shows them, with their labels. */
export const PRESETS = [
  { id: "standard-draw", label: "Draw game (standard)" },
  { id: "standard-block", label: "Block game (standard)" },
  { id: "pagat-draw", label: "Draw game (pagat.com)" },
  { id: "pagat-block", label: "Block game (pagat.com)" },
  { id: "dominorules-draw", label: "Draw game (dominorules.com)" },
  { id: "dominorules-block", label: "Block game (dominorules.com)" },
  { id: "winner-leads", label: "Winner leads any tile" },
  { id: "all-fives", label: "All Fives (spinner)" },
  { id: "muggins", label: "Muggins (spinner, call the count)" },
];
export const DEFAULT_PRESET = "standard-draw";

/** The server's bot levels, weakest first, as the seat menus offer them. */
export const BOT_LEVELS = ["random", "greedy", "expert"];

/** A preset's label; a preset this page does not know shows its name. */
export const presetLabel = (id) => PRESETS.find((p) => p.id === id)?.label ?? id;
