"""The ``intermediate`` and ``expert`` levels: determinized Monte Carlo over the hidden tiles,
with exact endings for the expert.

For each decision the bot

1. reads what its seat knows (``Knowledge``): its hand, the table, the unseen tiles, the
   numbers each other seat is known to lack (from its knocks, and its draws when a seat
   draws only because it is stuck) and the tiles a forced lead shows nobody else was dealt;
2. deals the unseen tiles at random, respecting every constraint and every count (the
   *determinizations*). The expert draws ``Budget.inference`` times as many deals as it
   will play out and picks among them in proportion to how likely each makes what the
   other seats chose to play (``Knowledge.likelihood``: if a seat's plays lean toward heavy
   tiles, a light tile it shed says it probably held no heavier one that fitted; a seat
   whose plays show no such lean is not read that way);
3. on each deal, makes each candidate move and plays the hand out: every seat sheds its
   best-scoring, then heaviest tile (``rollout``; ``epsilon`` of the moves random). The
   expert stops guessing once nothing can be drawn and at most ``Budget.exact_tiles``
   tiles are left: the rest of the hand is solved exactly, every seat playing perfectly for
   its side (``endgame.ExactLine``, alpha-beta). In a line game with nothing to draw the
   whole playout runs on bit masks (``ExactLine.playout``), without engine states;
4. scores each playout by what the hand brings its side (points at the hand's end and,
   in fives games, points made during play) against the other sides, plus a bonus or a
   penalty when the match ends, and plays the best average. The expert stops dealing
   early when the best move leads every other by ``Budget.sure`` standard errors, or when
   its solving has done ``Budget.exact_work``.

On the double-nine set the expert plays ``DOUBLE_NINE_BUDGET`` (``api.bots.level_budget``): steps 3
and 4 become honest rollouts (``Budget.honest``, ``honest.HonestRollout``): each candidate is
played out on each deal with every seat playing only on what it could see, no exact endings.

Experts partnered with each other also play a convention (``Budget.signal``): each prefers
plays that leave open a number it holds more of, and reads its partner's plays that way. Only
between bots of one level (each view shows every seat's kind and level), so a person
partnered with an expert is never misread.

Every candidate is played out on the same deals with the same rollout randomness, so
differences between candidates are not noise from different luck. The work is counted
(deals, playouts, positions searched), never timed, so the choice is a pure function of
(view, log, seed, budget), which ``/fairness`` and ``boneyard verify`` make again (api/bots/audit.py). Steering ends
toward numbers an opponent lacks, counting the unseen tiles, reading a partner's plays,
blocking and partnership play all come out of the weighed deals and the search rather than
hand-written rules.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from api.rules.layout import LEFT, RIGHT, UP
from api.rules.ruleset import RuleSet
from api.rules.scoring import count_points, credited
from api.rules.simulate import push
from api.rules.state import DRAW, ENDED, KNOCK, MUGGINS, PLAY, PLAYING, MatchState, Move
from api.rules.tiles import Tile
from api.rules.vocabulary import EndCountScoring, SeatKind

from .actions import Action, Json, find, no_play_choice, plays_of, to_move
from .endgame import ExactLine, SearchTooBig
from .honest import HonestRollout, Tree, seat_policy
from .knowledge import (
    Knowledge,
    ends_mask,
    greedy_seats,
    index_mask,
    lean_powers,
    signal_powers,
    signal_strength,
)


@dataclass(frozen=True)
class Budget:
    """How much the expert thinks: a fixed amount of work, so decisions are reproducible.

    ``determinizations`` deals of the hidden tiles, each candidate played out ``rollouts``
    times on each deal, but never more than ``max_playouts`` playouts in all (with many
    candidates the number of deals shrinks, down to ``min_determinizations``).
    ``epsilon`` is the share of random moves in the greedy playouts. In a line game, once
    nothing can be drawn and at most ``exact_tiles`` tiles are left in the hands, a playout
    stops guessing: the rest of the hand is solved exactly (``endgame.ExactLine``), visiting
    at most ``exact_limit`` positions per solve (beyond, the playout rolls on instead);
    ``exact_tiles=0`` turns this off. With the solver on, dealing stops early once the
    solves of the decision have visited ``exact_work`` positions (after at least
    ``min_determinizations`` deals): cheap positions get many deals, dear ones fewer.
    ``sure`` (0: off) stops dealing, checked every ``SURE_EVERY`` deals from
    ``min_determinizations`` on, once the best move so far leads every other by more than
    ``sure`` standard errors of their difference over the same deals: clear choices cost
    little, and the close ones get the deals. ``inference`` (1: off) weighs the deals by what
    the other seats chose to play (``Knowledge.likelihood``: a seat either leans ``lean`` toward
    the heavier tile, but for a ``stray`` share of its choices, or takes any fitting tile alike;
    its plays tell which): ``inference`` times as many deals are drawn as may be played out,
    and each deal played out is drawn from them in proportion to its likelihood.
    ``signal`` (0: off) is a partnership convention between bots of one level: when its
    partner's seat is a bot of its own level (every view shows each seat's kind and level), a
    play is worth ``signal`` points more per tile the seat keeps that carries the number the
    play leaves open (``knowledge.signal_strength``), and the partner's plays are read that
    way: a fitting tile that would have signalled ``k`` tiles more is ``signal_lean ** k``
    times likelier (but for a ``stray`` share of its plays).

    Three options, off in ``DEFAULT_BUDGET``: measured on issue 33's double-nine-partners row
    against greedy bots, none lifted the expert's share of decided hands beyond the noise
    (README, "Issue 33's games"), so its play stays as it was (``DOUBLE_NINE_BUDGET``'s honest
    rollouts use the last two). ``greedy_model`` plays the other seats that are
    greedy bots (``knowledge.greedy_seats``) as they play, heaviest fitting tile first, in the
    exact endings (instead of perfectly against this side) and in the playouts on a line
    (without ``epsilon``); ``greedy_reading`` reads their plays exactly (``Knowledge.shed``: no
    deal gives one a heavier tile that fitted when it played a lighter one) instead of by
    ``lean``; ``hand_win`` values winning the hand itself, in points, beside what it scores.

    ``honest`` (off) replaces the playouts and exact endings of a line game with nothing to draw,
    the lead included, by honest rollouts (``honest.HonestRollout``): on each deal every candidate
    is played out once, the greedy bots as greedy plays and every other seat, this one's side
    included, by a fixed policy that reads only what that seat could see, so nobody plays as if
    it saw the hands (the strategy fusion of solving each guessed deal exactly).

    Two more for the honest rollouts, off (README, "Issue 33's games", the fifth pass):
    ``ismcts`` searches this seat's own later decisions instead of playing them by the policy
    (single-observer ISMCTS below each candidate, ``honest.Node``: its decisions keyed by what it
    can see, UCB1 with ``explore`` points of exploration, a node seen ``n`` times choosing among the
    policy's first ``1 + widen * sqrt(n)`` plays); ``lead_reading`` reads a greedy seat's lead at
    will too (it led its heaviest tile: ``Knowledge.led``), under ``greedy_reading``;
    ``importance`` (with ``inference`` off) weighs each deal's values by the sampler's own correction
    (``Knowledge.weighed_sample``: how much likelier the deal is in truth than its way of dealing
    makes it) instead of counting every deal alike; with ``exact_deals`` (whose deals need no
    correction) it weighs them by how likely each makes the other seats' plays instead
    (``Knowledge.likelihood``, as ``inference`` reads them), without drawing deals again.

    Three more, off (README, "Issue 33's games", the sixth pass: truer deals, the same share):
    ``exact_deals`` draws every deal exactly uniformly among those consistent with what the seat
    knows (``Knowledge.uniform_sample``), whenever each other seat's hidden tiles share one
    constraint (always, in a game without drawing), instead of slot by slot (``Knowledge.sample``,
    which favours some deals); under ``importance`` those deals are weighed by the plays' odds, as
    said above. With ``greedy_ties`` too, each such deal is kept with the chance that it gives the
    greedy seats' plays (``Knowledge.tie_odds``: a greedy seat picks at random among equally heavy
    plays), else drawn again (up to ``TIE_TRIES`` times). ``partner_lean`` reads the partner's
    plays (under ``inference`` or ``importance``) as any other seat's, leaning toward weight or not
    (``Knowledge.likelihood``), instead of by the convention; the convention is still played.

    ``seat_policy`` names the policy the honest rollouts play every seat that is not greedy with
    (``honest.seat_policy``: a name of ``honest.POLICIES``, then any weights changed, as in
    ``shipped+unseen_fit:-4``); README, "Issue 33's games", the seventh pass, tuned it for its
    own strength against greedy sides (``bench/policy_tuning.py``): up to 5 points stronger alone,
    the expert rolling out with it was not, so every budget plays ``shipped``.
    """

    determinizations: int = 64
    rollouts: int = 1
    max_playouts: int = 400
    min_determinizations: int = 16
    epsilon: float = 0.1
    exact_tiles: int = 16
    exact_limit: int = 20_000
    exact_work: int = 24_000
    sure: float = 1.5
    inference: int = 4
    lean: float = 2.5
    stray: float = 0.2
    signal: float = 1.5
    signal_lean: float = 2.0
    greedy_model: bool = False
    greedy_reading: bool = False
    hand_win: float = 0.0
    honest: bool = False
    ismcts: bool = False
    lead_reading: bool = False
    importance: bool = False
    explore: float = 60.0
    widen: float = 0.5
    exact_deals: bool = False
    greedy_ties: bool = False
    partner_lean: bool = False
    seat_policy: str = "shipped"

    def deals_for(self, candidates: int) -> int:
        per_deal = max(1, candidates * self.rollouts)
        return max(self.min_determinizations, min(self.determinizations, self.max_playouts // per_deal))


# The expert: measured by bench/versus.py against the public AIs within its time budget.
DEFAULT_BUDGET = Budget()
# The expert on the double-nine set (issue 33's double-nine-partners): honest rollouts instead of
# exact endings, on twice the deals drawn straight from what the seat knows (no weighing: its cost
# goes into deals), greedy bots' plays read exactly, a hand's win worth 100 points beside its own.
# Against greedy sides it won 67.0% [61.7, 71.9] of 321 decided hands (120 matches; 64.3% of 642
# on 240, the seeds its options were chosen on; 62.1% of 2,749 on 960) where the double-six
# expert's play won 54.6% [49.4, 59.8], at a median 22.4 ms a decision (README, "Issue 33's
# games"). The double-six games keep ``DEFAULT_BUDGET``: not measured there.
DOUBLE_NINE_BUDGET = dataclasses.replace(
    DEFAULT_BUDGET,
    honest=True,
    greedy_reading=True,
    inference=1,
    determinizations=128,
    max_playouts=1000,
    min_determinizations=32,
    hand_win=100.0,
)
# The intermediate level: the same playouts, a few of them, greedy to the end (no exact
# endings), a fixed number of deals, no reading and no convention: between greedy and expert
# (bench/strength.py).
INTERMEDIATE_BUDGET = Budget(
    determinizations=12, max_playouts=96, min_determinizations=4, exact_tiles=0, sure=0.0, inference=1, signal=0.0
)


def choose_expert(
    view: Json,
    log: Sequence[Json],
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    read: Callable[[Json, Sequence[Json]], Knowledge] = Knowledge.read,
) -> Action:
    """The expert's action for the seat of ``view``. ``read`` turns the view and log into what the
    seat knows: ``Knowledge.read`` for every seat the server plays (``choose_action`` passes no
    other); ``bench/sighted.py`` alone passes one that shows the true hands, to measure a ceiling."""
    actions = view["legal_actions"]
    muggins = find(actions, MUGGINS)
    if muggins is not None:
        return muggins  # free points, and it costs no turn
    plays = plays_of(actions)
    if not plays:
        return no_play_choice(actions)
    know = read(view, log)
    if not budget.greedy_reading:
        know = dataclasses.replace(know, shed={})
    elif budget.lead_reading:
        know = dataclasses.replace(know, shed=know.led)
    candidates = candidates_of(actions, know)
    if len(candidates) == 1:
        return candidates[0]  # as listed: under muggins_calls a scoring play claims
    values = evaluate(know, [to_move(a) for a in candidates], rng, budget)
    scores = _with_signals(know, candidates, values, budget)
    best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
    return candidates[best]


def candidates_of(actions: list[Action], know: Knowledge) -> list[Action]:
    """The choices the expert weighs among ``actions`` (a view's listed actions): each play that
    leaves a table of its own (``_distinct``), then a draw when one is listed beside them
    (``draw_at_will``: holding back is a real choice). The analysis after a match lists the same."""
    candidates = _distinct(plays_of(actions), know)
    draw = find(actions, DRAW)
    if draw is not None:
        candidates.append(draw)
    return candidates


def _with_signals(know: Knowledge, candidates: list[Action], values: list[float], budget: Budget) -> list[float]:
    """The candidates' values, each play raised by ``budget.signal`` per tile kept that carries the
    number it leaves open, when the partner plays the convention too (a new list)."""
    if not budget.signal or signalling_partner(know) is None or know.layout.tiles == 0:
        return values
    hand = index_mask(know.hand)
    scores = []
    for action, value in zip(candidates, values):
        move = to_move(action)
        if move[0] == PLAY:
            tile, on = move[1], know.layout.values[move[2]]
            far = tile.low if tile.high == on else tile.high
            value += budget.signal * signal_strength(hand, tile, far)
        scores.append(value)
    return scores


def signalling_partner(know: Knowledge) -> int | None:
    """The partner that plays (and reads) the ``Budget.signal`` convention with this seat: the other
    seat of its side, when both seats are bots of one level. None without a partner."""
    me = know.seat
    seats = know.view["seats"]
    partners = [s for s in know.rules.seats_of_side(know.rules.side_of(me)) if s != me]
    if len(partners) != 1:
        return None
    mine, theirs = seats[me], seats[partners[0]]
    if mine.get("type") == theirs.get("type") == SeatKind.BOT and mine.get("level") == theirs.get("level"):
        return partners[0]
    return None


def evaluate(know: Knowledge, moves: list[Move], rng: random.Random, budget: Budget) -> list[float]:
    """The mean playout value of each move, over constrained deals of the hidden tiles."""
    rules = know.rules
    me = know.seat
    side = rules.side_of(me)
    scoring = rules.end_count_scoring
    bonus = _match_bonus(rules)
    totals = [0.0] * len(moves)
    deals = budget.deals_for(len(moves))
    greedy = greedy_seats(know.view) if budget.greedy_model else frozenset()
    honest = _honest_rollout(know, moves, budget)
    exact = None if honest is not None else _exact_line(rules, me, know.view["scores"], bonus, budget, greedy)
    lines = exact is not None and _line_moves(know, moves)
    trees: list[Tree] | None = [{} for _ in moves] if honest is not None and budget.ismcts else None
    rows: list[list[float]] = []  # each deal's values, for ``sure``
    weighed = _weighed_deals(know, rng, budget, deals)
    dealt = 0
    weights = 0.0  # the deals' importance weights (``Budget.importance``; else 1 each)
    while dealt < deals:
        if dealt >= budget.min_determinizations:
            if honest is None and exact is not None and exact.visited >= budget.exact_work:
                break  # enough solving for this decision
            if budget.sure and dealt % SURE_EVERY == 0 and _settled(rows, totals, budget.sure):
                break
        dealt += 1
        if weighed is None and budget.importance and not budget.exact_deals:
            hands, boneyard, weight = know.weighed_sample(rng)  # (the same draws as ``know.sample``)
        else:
            hands, boneyard = _next_deal(know, weighed, rng, budget.exact_deals, budget.greedy_ties)
            weight = 1.0
            if weighed is None and budget.importance and know.choices:  # with ``exact_deals``: the plays' odds
                weight = _likelihood(know, hands, budget)
        if honest is not None:
            values = _honest_values(know, hands, moves, rng, honest, trees)
        elif lines:
            assert exact is not None
            values = _line_values(know, hands, moves, rng, budget, exact)
        else:
            values = [0.0] * len(moves)
            base = know.state(hands, boneyard)
            before = base.scores[:]
            for _r in range(budget.rollouts):
                seed = rng.getrandbits(64)
                for i, move in enumerate(moves):
                    st = base.copy()
                    push(st, move, seat=me)
                    if exact is None:
                        rollout(st, random.Random(seed), budget.epsilon, scoring)
                        values[i] += _value(st, before, side, bonus, budget.hand_win)
                    else:
                        values[i] += _solved_playout(st, random.Random(seed), budget, exact, before, side, bonus)
        for i, value in enumerate(values):
            totals[i] += weight * value
        weights += weight
        if budget.sure:
            rows.append(values)
    n = weights * budget.rollouts
    return [t / n for t in totals]


Deal = tuple[dict[int, list[Tile]], list[Tile]]  # hidden hands by seat, and the boneyard


def _weighed_deals(
    know: Knowledge, rng: random.Random, budget: Budget, deals: int
) -> tuple[list[Deal], list[float]] | None:
    """``budget.inference`` deals for each one to be played out, with their cumulative weights: how
    likely each makes the other seats' choices, times the sampler's own correction
    (``Knowledge.weighed_sample``); None when inference is off."""
    if budget.inference <= 1:
        return None
    candidates: list[Deal] = []
    cumulative = []
    total = 0.0
    for _ in range(budget.inference * deals):
        uniform = know.uniform_sample(rng) if budget.exact_deals else None
        if uniform is None:
            hands, boneyard, weight = know.weighed_sample(rng)
        else:
            hands, boneyard = uniform
            weight = 1.0
        if know.choices:
            weight *= _likelihood(know, hands, budget)
        total += weight
        candidates.append((hands, boneyard))
        cumulative.append(total)
    if not total > 0.0:
        return None  # every guess underflowed: no guidance
    return candidates, cumulative


TIE_TRIES = 16  # deals drawn at most for one kept under ``Budget.greedy_ties`` (the last one is kept)


def _likelihood(know: Knowledge, hands: dict[int, list[Tile]], budget: Budget) -> float:
    """How likely ``hands`` make the other seats' plays (``Knowledge.likelihood``), read as ``budget``
    reads them: the partner by the convention when both play it, unless ``partner_lean``."""
    signaller = signalling_partner(know) if budget.signal and not budget.partner_lean else None
    signals = signal_powers(budget.signal_lean)
    return know.likelihood(hands, lean_powers(budget.lean), budget.stray, signaller=signaller, signal_powers=signals)


def _next_deal(
    know: Knowledge,
    weighed: tuple[list[Deal], list[float]] | None,
    rng: random.Random,
    exact: bool = False,
    ties: bool = False,
) -> Deal:
    """The next deal to play out: a fresh one (``exact``: drawn uniformly when the seats' constraints
    allow it, ``Budget.exact_deals``; ``ties``: kept as likely as it makes the greedy seats' plays,
    ``Budget.greedy_ties``), or one drawn from the weighed deals."""
    if weighed is not None:
        return _pick(weighed, rng)
    deal = know.uniform_sample(rng) if exact else None
    if deal is None:
        return know.sample(rng)
    for _ in range(TIE_TRIES - 1 if ties else 0):
        odds = know.tie_odds(deal[0])
        if odds >= 1.0 or rng.random() < odds:
            break
        deal = know.uniform_sample(rng) or deal
    return deal


def _pick(weighed: tuple[list[Deal], list[float]], rng: random.Random) -> Deal:
    """One of the deals, drawn in proportion to its likelihood (``random.choices``' rule, spelled out
    for the replayer: the first whose cumulative likelihood exceeds a uniform point)."""
    candidates, cumulative = weighed
    point = rng.random() * cumulative[-1]
    for deal, upto in zip(candidates, cumulative):
        if point < upto:
            return deal
    return candidates[-1]


SURE_EVERY = 8  # deals between two looks at whether the choice is settled (``Budget.sure``)


def _settled(rows: list[list[float]], totals: list[float], sure: float) -> bool:
    """Whether the move leading so far beats every other by more than ``sure`` standard errors
    of the mean difference over the same deals (moves that always tie are no contest)."""
    lead = max(range(len(totals)), key=lambda i: (totals[i], -i))
    n = len(rows)
    for i in range(len(totals)):
        if i == lead:
            continue
        diffs = [row[lead] - row[i] for row in rows]
        total = 0.0
        for d in diffs:  # not sum(): from Python 3.12 it rounds differently, and the replayer re-runs this
            total += d
        mean = total / n
        spread = 0.0
        for d in diffs:
            spread += (d - mean) * (d - mean)
        variance = spread / (n - 1)
        if variance and mean * mean * n <= sure * sure * variance:
            return False  # (no variance: the same margin on every deal, or a tie on every deal)
    return True


def _line_moves(know: Knowledge, moves: list[Move]) -> bool:
    """Whether the rest of the hand is plays on a line, nothing left to draw: then the playouts
    run on bit masks (``ExactLine.playout``) instead of engine states."""
    return not _drawable(know) and know.layout.tiles > 0 and all(m[0] == PLAY for m in moves)


def _drawable(know: Knowledge) -> bool:
    """Whether a seat may still draw this hand."""
    rules = know.rules
    return rules.is_draw_game and know.boneyard > rules.boneyard_reserve


def _honest_rollout(know: Knowledge, moves: list[Move], budget: Budget) -> HonestRollout | None:
    """The honest rollouts of this decision (``Budget.honest``), when the rest of the hand is plays
    on a line, the lead included, with nothing to draw; None otherwise."""
    rules = know.rules
    if not budget.honest or rules.uses_spinner or rules.scores_the_count or _drawable(know):
        return None
    if not all(m[0] == PLAY for m in moves):
        return None
    me = know.seat
    line = ExactLine(
        [rules.side_of(s) for s in range(rules.players)],
        me,
        list(know.view["scores"]),
        rules.target,
        _match_bonus(rules),
        rules.hand_scoring,
        budget.exact_limit,
        rules.set,
        rules.exact_target,
        hand_win=budget.hand_win,
    )
    # what the others have shown they lack (``Knowledge.lacks`` reads the other seats, so this
    # seat's own knocks are left out: the rollouts' seats know a little less of it than they could)
    lacks = [0 if s == me else ends_mask(know.lacks(s)) for s in range(rules.players)]
    weights = seat_policy(budget.seat_policy)
    played = line.bits.mask_of(know.played)
    if not budget.ismcts:
        return HonestRollout(line, greedy_seats(know.view), lacks, weights=weights, played=played)
    return HonestRollout(
        line, greedy_seats(know.view), lacks, me, budget.explore, budget.widen, weights=weights, played=played
    )


def _honest_values(
    know: Knowledge,
    hands: dict[int, list[Tile]],
    moves: list[Move],
    rng: random.Random,
    honest: HonestRollout,
    trees: list[Tree] | None = None,
) -> list[float]:
    """Each move's value on one deal: played, then the hand played out honestly, every move on the
    same rollout randomness (with ``trees``, one per move, this seat's later moves searched in the
    move's own tree: ``HonestRollout.play``)."""
    me = know.seat
    players = know.rules.players
    line = honest.line
    mask_of, bit = line.bits.mask_of, line.bits.bit
    masks = [mask_of(hands[s]) if s != me else mask_of(know.hand) for s in range(players)]
    ends = know.layout.values
    seed = rng.getrandbits(64)
    out = []
    for k, move in enumerate(moves):
        tile = move[1]
        if know.layout.tiles == 0:
            a, b = tile.high, tile.low  # the lead: both its numbers open
        else:
            left, right = ends[LEFT], ends[RIGHT]
            assert left is not None and right is not None  # a line with tiles on it: both ends open
            on = ends[move[2]]
            far = tile.low if tile.high == on else tile.high
            a, b = (far, right) if move[2] == LEFT else (left, far)
        child = masks[:]
        child[me] ^= bit[tile]
        if not child[me]:
            out.append(line.ended(child, line.my_side))
        else:
            rollout_rng = random.Random(seed)
            if trees is None:
                out.append(honest.play(child, a, b, (me + 1) % players, rollout_rng, placed=bit[tile]))
            else:
                out.append(honest.play(child, a, b, (me + 1) % players, rollout_rng, trees[k], bit[tile]))
    return out


def _line_values(
    know: Knowledge,
    hands: dict[int, list[Tile]],
    moves: list[Move],
    rng: random.Random,
    budget: Budget,
    exact: ExactLine,
) -> list[float]:
    """Each move's value on one deal: played, then played out and solved on bit masks."""
    me = know.seat
    players = know.rules.players
    mask_of, bit = exact.bits.mask_of, exact.bits.bit
    masks = [mask_of(hands[s]) if s != me else mask_of(know.hand) for s in range(players)]
    ends = know.layout.values
    out = []
    for _r in range(budget.rollouts):
        seed = rng.getrandbits(64)
        for move in moves:
            tile, end = move[1], move[2]
            on = ends[end]
            far = tile.low if tile.high == on else tile.high
            left, right = ends[LEFT], ends[RIGHT]
            assert left is not None and right is not None  # a line with tiles on it: both ends open
            a, b = (far, right) if end == LEFT else (left, far)
            child = masks[:]
            child[me] ^= bit[tile]
            if not child[me]:
                out.append(exact.ended(child, exact.my_side))
            else:
                out.append(
                    exact.playout(
                        child, a, b, (me + 1) % players, random.Random(seed), budget.epsilon, budget.exact_tiles
                    )
                )
    if budget.rollouts == 1:
        return out
    k = len(moves)
    sums = [0.0] * k
    for j, value in enumerate(out):  # a plain loop, not sum(): the same float on every Python
        sums[j % k] += value
    return sums


def _exact_line(
    rules: RuleSet, me: int, scores: list[int], bonus: float, budget: Budget, greedy: frozenset[int] = frozenset()
) -> ExactLine | None:
    """The exact solver for this decision, when its hands can end in a line without scoring on the way."""
    if budget.exact_tiles <= 0 or rules.uses_spinner or rules.scores_the_count:
        return None
    sides = [rules.side_of(s) for s in range(rules.players)]
    scoring = rules.hand_scoring
    return ExactLine(
        sides,
        me,
        list(scores),
        rules.target,
        bonus,
        scoring,
        budget.exact_limit,
        rules.set,
        rules.exact_target,
        greedy,
        budget.hand_win,
    )


def _solved_playout(
    st: MatchState,
    rng: random.Random,
    budget: Budget,
    exact: ExactLine,
    before: list[int],
    side: int,
    bonus: float,
) -> float:
    """A playout that plays greedily until the rest of the hand can be solved exactly, then solves it."""
    while st.hand_live and st.status == PLAYING:
        if st.boneyard_drawable() == 0 and sum(map(len, st.hands)) <= budget.exact_tiles:
            values = st.layout.values
            hands = [exact.bits.mask_of(h) for h in st.hands]
            try:
                return exact.solve(hands, values[LEFT], values[RIGHT], st.turn)  # type: ignore[arg-type]
            except SearchTooBig:
                pass  # too big to solve within the budget: this playout rolls on to the end
            rollout(st, rng, budget.epsilon, _NO_COUNT)
            break
        push(st, policy_move(st, rng, budget.epsilon, _NO_COUNT))
    return _value(st, before, side, bonus, budget.hand_win)


def rollout(st: MatchState, rng: random.Random, epsilon: float, scoring: EndCountScoring) -> MatchState:
    """Play the hand out: every seat sheds its best-scoring (by ``scoring``, the rules'
    ``end_count_scoring``; under ``exact_target`` a play reaching the target first, and points
    past it count for nothing), then heaviest tile (``epsilon`` random)."""
    while st.hand_live and st.status == PLAYING:
        push(st, policy_move(st, rng, epsilon, scoring))
    return st


_NO_COUNT = EndCountScoring.NONE
_WINS = 1_000  # a play's points in the playout policy's eyes when they reach an exact target: the match


def policy_move(st: MatchState, rng: random.Random, epsilon: float, scoring: EndCountScoring) -> Move:
    hand = st.hands[st.turn]  # type: ignore[index]  # a seat: the hand is live
    layout = st.layout
    if layout.tiles == 0:
        heaviest = max(hand, key=lambda t: (t.pips, t.is_double, t.high))
        return (PLAY, heaviest, 0)
    values = layout.values
    plays: list[Move] = []
    best: Move | None = None
    best_key = -1
    score = target = 0
    exact = False
    if scoring is not _NO_COUNT:
        rules = st.rules
        score, target, exact = st.scores[rules.side_of(st.turn)], rules.target, rules.exact_target  # type: ignore[arg-type]
    for t in hand:
        h, low = t.high, t.low
        for i in range(4):
            v = values[i]
            if v is not None and (h == v or low == v):
                key = 2 * t.pips + t.is_double
                if scoring is not _NO_COUNT:
                    points = count_points(layout.count_after(t, i), scoring)
                    if exact:  # points past an exact target score nothing; reaching it wins
                        points = credited(points, score, target, True)
                        if points and score + points == target:
                            points = _WINS
                    key += 64 * points
                move = (PLAY, t, i)
                plays.append(move)
                if key > best_key:
                    best, best_key = move, key
    if best is None:
        return (DRAW,) if st.boneyard_drawable() else (KNOCK,)
    if epsilon and len(plays) > 1 and rng.random() < epsilon:
        return rng.choice(plays)
    return best


def _value(st: MatchState, before: list[int], side: int, bonus: float, hand_win: float = 0.0) -> float:
    gains = [a - b for a, b in zip(st.scores, before)]
    others = len(gains) - 1
    value = gains[side] - (sum(gains) - gains[side]) / others
    if hand_win and max(gains) > 0:
        value += hand_win if gains[side] == max(gains) else -hand_win / others
    if st.status == ENDED:
        value += bonus if st.winner == side else -bonus
    return value


def _match_bonus(rules: RuleSet) -> float:
    """What reaching the target is worth beyond its points, in points."""
    return rules.target / 2


def _distinct(plays: list[Action], know: Knowledge) -> list[Action]:
    """Drop plays that leave the same table as an earlier one (5-3 on either 5 end…)."""
    seen: set[object] = set()
    out = []
    for action in plays:
        move = to_move(action)
        after = know.layout.copy()
        after.place(move[1], move[2])
        shape = tuple(
            sorted(
                (i >= UP, after.values[i], after.doubles[i], after.occupied[i], i in after.spinner_ends)
                for i in range(4)
            )
        )
        key = (move[1].index, shape, after.spinner_sides, after.spinner is not None)
        if key not in seen:
            seen.add(key)
            out.append(action)
    return out
