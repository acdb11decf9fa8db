"""Queendomino (RULES.md in shared/games/queendomino): the pure rules engine.

``QUEENDOMINO`` implements ``Rules[QueendominoConfig, QueendominoState, QueendominoMove,
QueendominoView]`` for 2 to 4 seats, registered in ``games.GAMES`` as ``"queendomino"``;
its protocol codec is ``service/codecs/queendomino.py``. Modules:

* :mod:`.data`: the 48 dominoes and 32 building tiles shipped in ``data/``, validated
  against a schema in code; ``load_buildings(path)`` reads an operator's override table.
* :mod:`.kingdom`: a kingdom (5x5 or 7x7 box around the castle), placement legality with
  :class:`QueendominoReason` codes, and the enumeration of legal placements.
* :mod:`.scoring`: territories, the queen's crown, building points and coins.
* :mod:`.moves`, :mod:`.views`, :mod:`.errors`: the contract with the protocol codec.
* :mod:`.state`, :mod:`.rules`: the configuration, the match state and the engine.

Rulings implemented (RULES.md, each tested in ``tests/games/queendomino``):

* Setup (2): all 48 dominoes and the 32 buildings are shuffled with the seed; 6 buildings
  are dealt to the board; each seat starts with 7 coins, 1 knight and an empty 7x7
  (2 seats) or 5x5 kingdom; 2 seats play 2 kings each. The first line is drawn sorted.
* Round 0 is the setup choice (2.9): only ``Choose`` decisions, in a random order: a
  shuffle of the seats (3-4 seats), or for 2 seats a random seat that chooses first and
  last with the other seat's two kings in between. The next line is drawn after it.
* Rounds 1..12: kings act in the order of the numbers of the dominoes they stand on; a
  turn is place, tax, build, dragon, choose (3), with no choice in round 12 (3E, 5).
* A domino that fits nowhere is discarded; ``Discard()`` is then the one legal move and
  is legal only then (3A). Discarded dominoes leave the game (``removed``).
* Tax (3B): 1 or 2 unplaced knights on the squares of the domino just placed, each
  collecting its territory's size plus the ongoing bonuses; none after a discard.
* Build (3C): any building on the board for an open town square, at the space's price,
  1 less for the queen's host; one per turn; immediate knights and towers (6).
* Dragon (3D): 1 coin burns a building; once per round for the table; never the queen's
  host.
* The queen (6) moves to a seat that gains towers and then has at least as many as every
  other seat; at the end she is one more crown on her host's largest territory (5).
* End of round (4): the dragon returns, the board slides and refills, the 3-seat free
  domino of the new line leaves the game, a new line is drawn.
* Ranks (7): score, then the largest territory; seats still tied share the place.

**[engine choice]** points, each with RULES.md's suggested default:

* Supply (1): coins are an unlimited integer; knights (22, the starting knights
  included) and towers (15) are capped by what is left in the supply.
* Tax bonus (3B): once per knight placed; ``QueendominoConfig(tax_bonus_per_knight=
  False)`` reads it as once per tax step (a match option on the wire:
  ``QueendominoConfig.tax_bonus``).
* Queen discount (3C): clamped at 0; the 0 space stays free, no refund.
* Board refill (4.2, inferred): the buildings keep their order and slide toward the 0
  space; empty spaces are filled from the pile, the cheapest empty space first (the deal
  at setup too); an empty pile leaves spaces empty.
* A discard still offers steps C and D (9).
* Unknown building values (``null`` in ``buildings.json``, 9) are 0 knights, 0 towers
  and no ongoing effect; :attr:`BuildingTable.defaulted` lists them.

Decisions where RULES.md is silent:

* Randomness is used only at setup, in this order: domino shuffle, building shuffle,
  king order (``games._random``); the deck and pile orders are hidden from every view.
* An optional step whose only legal move would be ``Skip`` is passed over (no unplaced
  knight, nothing affordable or no open town square, the dragon unavailable, no coin or
  an empty board); mandatory steps and a forced ``Discard()`` are always asked.
* In round 0 ``TurnView.domino`` is ``None``; in later rounds the current line keeps
  every slot (``done`` once played) except the 3-seat free domino, removed at the round's
  start.
* The queen moves only when a seat actually receives towers (the supply may give none).
* Rejections check the seat, then the move's kind (``MALFORMED_MOVE``), ``Skip`` in a
  mandatory step (``SKIP_NOT_ALLOWED``), the step (``WRONG_STEP``; a ``Bribe`` while the
  dragon is unavailable to the seat says ``DRAGON_NOT_AVAILABLE`` instead), then the
  fields in RULES.md's order. Tax: duplicate or foreign cells (``KNIGHT_NOT_ON_DOMINO``)
  before the knight count.
* A legal placement is a ``(cell, rotation)`` pair; dominoes with two identical halves
  list each footprint under both of its rotations.
* Live scores (views) leave out the queen's crown until the game is over; after round
  12 the game ends without the end-of-round housekeeping.

Version history:

* 1 -- first version of the engine.
"""

from __future__ import annotations

from botarena.server.games.queendomino.components import (
    Building,
    Domino,
    EndGameScoring,
    OngoingEffect,
    ScoringKind,
    Square,
    Terrain,
)
from botarena.server.games.queendomino.data import (
    BUILDING_COUNT,
    DOMINO_COUNT,
    BuildingTable,
    ComponentDataError,
    DefaultedField,
    load_buildings,
    load_dominoes,
    parse_buildings,
    parse_dominoes,
)
from botarena.server.games.queendomino.errors import QueendominoReason
from botarena.server.games.queendomino.kingdom import (
    CASTLE,
    Cell,
    DominoPlacement,
    Kingdom,
    Rotation,
    kingdom_size,
)
from botarena.server.games.queendomino.moves import (
    BOARD_PRICES,
    Bribe,
    Build,
    Choose,
    Discard,
    Place,
    QueendominoMove,
    Skip,
    Step,
    Tax,
)
from botarena.server.games.queendomino.rules import QUEENDOMINO, QueendominoRules
from botarena.server.games.queendomino.scoring import (
    ScoreBreakdown,
    Territory,
    building_points,
    coin_points,
    largest_territory_size,
    score_kingdom,
    territories,
    territory_points,
)
from botarena.server.games.queendomino.state import (
    COMPLETED,
    KNIGHT_SUPPLY,
    LINE_SIZE,
    ROUNDS,
    START_COINS,
    START_KNIGHTS,
    TOWER_SUPPLY,
    QueendominoConfig,
    QueendominoState,
    starting_player,
)
from botarena.server.games.queendomino.views import (
    LineSlot,
    PlayerState,
    QueendominoView,
    TurnView,
)

__all__ = [
    "BOARD_PRICES",
    "BUILDING_COUNT",
    "CASTLE",
    "COMPLETED",
    "DOMINO_COUNT",
    "KNIGHT_SUPPLY",
    "LINE_SIZE",
    "QUEENDOMINO",
    "ROUNDS",
    "START_COINS",
    "START_KNIGHTS",
    "TOWER_SUPPLY",
    "Bribe",
    "Build",
    "Building",
    "BuildingTable",
    "Cell",
    "Choose",
    "ComponentDataError",
    "DefaultedField",
    "Discard",
    "Domino",
    "DominoPlacement",
    "EndGameScoring",
    "Kingdom",
    "LineSlot",
    "OngoingEffect",
    "Place",
    "PlayerState",
    "QueendominoConfig",
    "QueendominoMove",
    "QueendominoReason",
    "QueendominoRules",
    "QueendominoState",
    "QueendominoView",
    "Rotation",
    "ScoreBreakdown",
    "ScoringKind",
    "Skip",
    "Square",
    "Step",
    "Tax",
    "Terrain",
    "Territory",
    "TurnView",
    "building_points",
    "coin_points",
    "kingdom_size",
    "largest_territory_size",
    "load_buildings",
    "load_dominoes",
    "parse_buildings",
    "parse_dominoes",
    "score_kingdom",
    "starting_player",
    "territories",
    "territory_points",
]
