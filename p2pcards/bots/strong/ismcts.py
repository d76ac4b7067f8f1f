"""Information-set Monte Carlo tree search with determinization.

After Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search"
(IEEE TCIAIG 2012), single-observer form. Each iteration deals the cards the
searching seat has not seen at random, consistently with what it has seen
(``determinize``), walks the tree of the seat's own decisions down to where
the turn passes to somebody else, then plays the deal on with the greedy
players for every seat (the rollout policy), cut off after a number of steps
for the canastas' long deals, and scores the result (``evaluate``).

A tree node is an information set of the searching seat: the sequence of its
own actions this turn. An action may be legal in some determinizations only
(what a draw brings); selection below the root is UCB1 with availability
counts: a child's exploration term counts the iterations in which it could
have been chosen. At the root every action is tried on each determinization
(common random numbers): with deterministic greedy rollouts the actions are
then compared on the same deals, which at the few hundred simulations a
second the engines allow separates them far better than independent samples.
In the canastas three things change. Their move lists are long (every
meld, add and discard of a 15-card hand), so only ``ROOT_WIDTH`` moves are
searched: the heuristic's best of each kind (so that stopping to discard is
weighed against melding on, the pile against the stock) and its best
others. The budget is spent by sequential halving (Karnin, Koren & Somekh
2013): equal shares per round, every live move on each deal, the worse half
dropped after each round but never the heuristic's own move, so the last
rounds compare the two or three best moves on most of the deals. And the
searching seat plays by its own heuristic (``canasta_policy``: the greedy
scores plus what a discard may hand the next player), in the simulations
and as its first guess; the others are played by the greedy bot.
Other seats' moves are not in the tree: the greedy policy plays them, which
keeps every simulation a plausible game. Below the root a node grows children
only once it has been visited ``EXPAND_AFTER`` times, trying the heuristic's
move first; until then the heuristic plays the rest of the turn too.

The answer is the heuristic's move unless another does better on the same
deals by more than its noise: the mean of the paired differences must exceed
``CONFIDENCE`` standard errors over at least ``MIN_DEALS`` deals (a search
cut short by its budget falls back on the heuristic instead of on chance).
"""

from __future__ import annotations

import importlib
import logging
import math
import random
import time
from dataclasses import dataclass, field

from p2pcards.games.base import IllegalAction
from p2pcards.bots.strong.determinize import Determinizer
from p2pcards.bots.strong.evaluate import outcome

log = logging.getLogger("p2pcards.bots.strong")

EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1]
# Rollout steps before the evaluation judges the deal (None: to the end).
ROLLOUT_DEPTH = {"kanasta": 60, "kanaszta": 60, "warkocz": None, "bura": None}
MAX_ITERATIONS = 20000  # the simulation cap, whatever the time budget
EXPAND_AFTER = 8  # visits of a node below the root before it grows children
CONFIDENCE = 1.5  # standard errors a move must beat the greedy one by...
MIN_DEALS = 6  # ...on at least this many determinizations
# Root moves searched: the heuristic's best this many (None: every move).
ROOT_WIDTH = {"kanasta": 6, "kanaszta": 6, "warkocz": None, "bura": None}
# Sequential halving of the root moves (else every move on every deal to the end).
HALVING = {"kanasta": True, "kanaszta": True, "warkocz": False, "bura": False}
# The searching seat's own heuristic, where it is not the greedy bot's.
OWN_POLICY = {"kanasta": "p2pcards.bots.strong.canasta_policy", "kanaszta": "p2pcards.bots.strong.canasta_policy"}


def action_key(action: dict) -> tuple:
    """A hashable, order-independent form of an action."""
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in action.items()))


@dataclass
class Node:
    action: dict | None = None
    visits: int = 0
    reward: float = 0.0
    wins: float = 0.0
    avail: int = 0
    children: dict = field(default_factory=dict)
    samples: list = field(default_factory=list)  # root children: reward on each determinization

    def ucb(self) -> float:
        return self.reward / self.visits + EXPLORATION * math.sqrt(math.log(self.avail) / self.visits)


@dataclass
class Decision:
    """The search's answer: the action, and what it is based on."""

    action: dict
    iterations: int
    visits: int  # simulations through the chosen action
    win_rate: float | None  # share of those simulations the seat's side won
    forced: bool = False  # the only legal action


def _greedy(game_id: str):
    return importlib.import_module(f"p2pcards.bots.greedy.{game_id}")


def own_policy(game_id: str):
    """The heuristic the searching seat plays by: its first guess at the root
    and its moves in the simulations (the others play the greedy bot)."""
    if game_id in OWN_POLICY:
        return importlib.import_module(OWN_POLICY[game_id])
    return _greedy(game_id)


def _candidates(game, state, legal: list[dict], own) -> list[dict]:
    """The root moves to search: every legal move, or where there are more
    than ``ROOT_WIDTH``, the heuristic's best move of each kind (so that
    stopping to discard is weighed against melding on, taking the pile
    against drawing) and then its best others, its own choice first."""
    width = ROOT_WIDTH[game.id]
    if width is None or len(legal) <= width:
        return legal
    ranked = [a for _, a in sorted(own.scored(game, state, legal), key=lambda sa: -sa[0])]
    kinds = {}
    for a in ranked:  # stable: ties keep the engine's order
        kinds.setdefault(a["type"], a)
    picked = list(kinds.values())[:width]
    picked += [a for a in ranked if a not in picked][:width - len(picked)]
    return sorted(picked, key=ranked.index)


def search(game, state, rng: random.Random, iterations: int | None = None,
           seconds: float | None = None) -> Decision:
    """The action for the seat to act in ``state`` (its own seat's state).

    ``iterations`` fixes the number of simulations (deterministic for a given
    rng); otherwise ``seconds`` of wall time, at most ``MAX_ITERATIONS``."""
    legal = game.legal_actions(state)
    if not legal:
        raise ValueError("no legal action: it is nobody's turn")
    if len(legal) == 1:
        return Decision(legal[0], 0, 0, None, forced=True)
    seat = game.to_act(state)
    own = own_policy(game.id)
    others = _greedy(game.id)
    try:
        sampler = Determinizer(game.id, state)
    except ValueError as exc:
        # What this seat saw admits no deal: somebody broke a rule the engine
        # could not check without their cards (a false pass, which the audit
        # will name). Play on with the heuristic rather than stop the game.
        log.warning("seat %s: no deal fits what it has seen (%s); playing the greedy move", seat, exc)
        return Decision(own.choose(game, state, rng), 0, 0, None)

    def policy(g, s, r):
        return (own if g.to_act(s) == seat else others).choose(g, s, r)

    depth = ROLLOUT_DEPTH[game.id]
    root = Node()
    for a in _candidates(game, state, legal, own):
        root.children[action_key(a)] = Node(action=a)
    favourite = root.children[action_key(own.choose(game, state, random.Random(0)))]
    cap = iterations if iterations is not None else MAX_ITERATIONS
    deadline = None if iterations is not None else time.perf_counter() + (seconds if seconds is not None else 1.0)
    alive = list(root.children.values())
    done = 0

    def more() -> bool:
        return done < cap and (deadline is None or done == 0 or time.perf_counter() < deadline)

    def deal() -> None:
        """One determinization, every live root move played out on it."""
        nonlocal done
        world = sampler.sample(rng)
        for child in alive:
            if not more():
                return
            child.avail += 1
            _iterate(game, world, seat, child, policy, depth, rng)
            done += 1

    if not HALVING[game.id]:
        while more():
            deal()
    else:
        # Sequential halving: equal shares of the budget per round, the worse
        # half of the moves (never the favourite) dropped after each.
        started = time.perf_counter()
        deal()
        if deadline is not None:  # the budget in simulations, from the first deal's pace
            pace = (time.perf_counter() - started) / max(done, 1)
            cap = min(cap, done + int((deadline - time.perf_counter()) / pace) if pace > 0 else cap)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        for r in range(rounds):
            target = cap * (r + 1) // rounds
            while more() and done < target:
                deal()
            if r + 1 < rounds and len(alive) > 2:
                ranked = sorted(alive, key=lambda c: -c.reward / max(c.visits, 1))
                keep = ranked[:math.ceil(len(alive) / 2)]
                if favourite not in keep:
                    keep.append(favourite)
                alive = [c for c in alive if c in keep]
    best = _choose(alive, favourite)
    return Decision(best.action, done, best.visits, best.wins / best.visits if best.visits else None)


def _choose(children: list[Node], favourite: Node) -> Node:
    """The child that beats the favourite on the same deals by more than its
    noise (the largest lower bound), else the favourite."""
    best, best_bound = favourite, 0.0
    for child in children:
        n = min(len(child.samples), len(favourite.samples))
        if child is favourite or n < MIN_DEALS:
            continue
        diffs = [a - b for a, b in zip(child.samples[:n], favourite.samples[:n])]
        mean = sum(diffs) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        bound = mean - CONFIDENCE * spread / math.sqrt(n)
        if bound > best_bound:
            best, best_bound = child, bound
    return best


def _iterate(game, world, seat: int, first: Node, policy, depth, rng: random.Random) -> None:
    """One simulation on ``world`` starting with the root action ``first``."""
    s = game.apply(world, first.action)
    node = first
    path = [first]
    # Selection and expansion over the seat's own decisions of this turn.
    while not game.deal_over(s) and game.to_act(s) == seat and node.visits >= EXPAND_AFTER:
        legal = game.legal_actions(s)
        keyed = [(action_key(a), a) for a in legal]
        untried = []
        for key, a in keyed:
            child = node.children.get(key)
            if child is None:
                untried.append((key, a))
            else:
                child.avail += 1
        if untried:
            greedy = action_key(policy(game, s, rng))
            pick = next((i for i, (k, _) in enumerate(untried) if k == greedy), None)
            key, a = untried[pick if pick is not None else rng.randrange(len(untried))]
            child = node.children[key] = Node(action=a, avail=1)
            path.append(child)
            s = game.apply(s, a)
            break
        child = max((node.children[k] for k, _ in keyed), key=Node.ucb)
        path.append(child)
        s = game.apply(s, child.action)
        node = child
    # Rollout: every seat plays greedy.
    steps = 0
    while not game.deal_over(s) and (depth is None or steps < depth):
        try:
            s = game.apply(s, policy(game, s, rng))
        except IllegalAction:  # a heuristic slip in an odd determinization: stop and judge here
            break
        steps += 1
    win, reward = outcome(game, s, seat)
    first.samples.append(reward)
    for n in path:
        n.visits += 1
        n.reward += reward
        n.wins += win
