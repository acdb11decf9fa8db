"""The heuristic Qwixx bot: its rule on chosen positions, and its strength against random.

Strength: 3-seat games (one heuristic, two random bots), every seed in all three seat
rotations, played in-process through the engine and the server's codec (the bots see the
same ``PlayerView`` and legal ``Move`` messages as over gRPC). The sample is 30 games; the
figure over 501 games is measured with ``botarena match --game qwixx --bot heuristic
--bot random --bot random --games 501`` (docs/bots.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from botarena.bots import HeuristicQwixxBot, RandomBot, UnsupportedGameError
from botarena.clients import Bot
from botarena.server.games.qwixx import (
    QWIXX,
    Action,
    Colour,
    Decline,
    MarkColourSum,
    MarkWhiteSum,
    QwixxConfig,
    QwixxMove,
    QwixxState,
    Sheet,
    WhiteSumsApplied,
)
from botarena.server.match._hooks import hooks_for
from botarena.server.service import codec_for_game
from botarena.v1 import match_pb2

CODEC = codec_for_game("qwixx")
SEEDS = 10
# The heuristic bot wins about 99 % of such games (29 or 30 of this sample); the issue
# asks for 90 %, and a bot no better than random wins about a third.
MIN_WIN_RATE = 0.9


def _ask(bot: Bot, state: QwixxState, seat: int, rng: random.Random) -> QwixxMove:
    view = match_pb2.PlayerView()
    CODEC.encode_view(QWIXX.view(state, seat), seat, with_history=False, out=view)
    moves = CODEC.encode_moves(QWIXX.legal_moves(state, seat))
    move = CODEC.decode_move(bot.choose_move(view, moves, rng))
    assert isinstance(move, QwixxMove)
    return move


def _play(seed: int, bots: list[Bot]) -> tuple[int, ...]:
    state = QWIXX.new_match(QwixxConfig(), len(bots), seed)
    rngs = [random.Random(seed * 10 + seat) for seat in range(len(bots))]
    while not state.is_over:
        for seat in sorted(QWIXX.to_act(state)):
            state = QWIXX.apply(state, seat, _ask(bots[seat], state, seat, rngs[seat]))
    outcome = QWIXX.outcome(state)
    assert outcome is not None
    return outcome.ranks


def test_heuristic_beats_two_random_bots_in_nine_games_of_ten() -> None:
    wins = games = 0
    for seed in range(SEEDS):
        for heuristic_seat in range(3):
            bots: list[Bot] = [RandomBot(), RandomBot(), RandomBot()]
            bots[heuristic_seat] = HeuristicQwixxBot()
            ranks = _play(seed, bots)
            others = [ranks[seat] for seat in range(3) if seat != heuristic_seat]
            wins += all(ranks[heuristic_seat] < rank for rank in others)
            games += 1
    print(f"heuristic won {wins} of {games} games ({wins / games:.1%})")
    assert wins / games >= MIN_WIN_RATE


def _position(sheets: list[Sheet], white: tuple[int, int], **options: object) -> QwixxState:
    # ``options`` are from_position's keywords, forwarded unchecked.
    return QwixxState.from_position(sheets=sheets, white=white, **options)  # type: ignore[arg-type]


def test_action_one_takes_the_mark_that_skips_least() -> None:
    # White sum 6: red after 5 skips nothing, green after 12 skips 11..7.
    state = _position([Sheet.of(red=(2, 5), green=(12,)), Sheet()], (3, 3))
    assert _ask(HeuristicQwixxBot(), state, 0, random.Random(0)) == MarkWhiteSum(Colour.RED, 6)


def test_action_one_declines_a_mark_that_skips_too_many() -> None:
    # White sum 12: red and yellow skip 3..11 (8.5), green and blue skip 11..3 (8.5).
    state = _position([Sheet.of(red=(2,), yellow=(2,), green=(12,), blue=(12,)), Sheet()], (6, 6))
    assert _ask(HeuristicQwixxBot(), state, 0, random.Random(0)) == Decline()


def test_action_two_prefers_a_mark_to_a_penalty() -> None:
    # The active seat declined in action 1; white 1 + red 3 = 4 skips 2 and 3 in red (1.5).
    sheets = [Sheet(), Sheet()]
    state = _position(sheets, (1, 1), colours=(3, 6, 6, 6), action=Action.COLOUR_SUM, active=0)
    state = state._replace(history=(WhiteSumsApplied((Decline(), Decline())),))
    assert _ask(HeuristicQwixxBot(), state, 0, random.Random(0)) == MarkColourSum(0, Colour.RED)


def test_a_lock_is_taken_only_when_ahead() -> None:
    row = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
    # White sum 12: only red's lock is legal (the other rows hold their first numbers).
    own = Sheet.of(red=row, yellow=(2,), green=(12,), blue=(12,))  # 58 points
    behind = _position([own, Sheet.of(yellow=row, blue=(12, 11, 10))], (6, 6))  # 61
    ahead = _position([own, Sheet()], (6, 6))
    bot = HeuristicQwixxBot()
    assert _ask(bot, behind, 0, random.Random(0)) == Decline()
    assert _ask(bot, ahead, 0, random.Random(0)) == MarkWhiteSum(Colour.RED, 12)


def test_the_heuristic_bot_refuses_other_games() -> None:
    view = match_pb2.PlayerView()
    view.qwirkle.SetInParent()
    with pytest.raises(UnsupportedGameError):
        HeuristicQwixxBot().choose_move(view, [match_pb2.Move()], random.Random(0))


def _never_drawn(options: Sequence[object]) -> object:
    raise AssertionError(f"Qwixx's stand-in draws nothing, but was offered {options}")


def test_the_match_layer_declines_for_a_seat_that_timed_out() -> None:
    # Fair play: a stand-in is never stronger than a weak player; Qwixx's marks nothing.
    hooks = hooks_for("qwixx")
    state = QWIXX.new_match(QwixxConfig(), 3, 1)
    assert all(
        hooks.stand_in_move(QWIXX, state, seat, _never_drawn) == Decline() for seat in range(3)
    )
    state = _position([Sheet.of(red=(2, 3)), Sheet()], (1, 1), action=Action.COLOUR_SUM)
    assert hooks.stand_in_move(QWIXX, state, 0, _never_drawn) == Decline()
    with pytest.raises(LookupError):
        hooks.stand_in_move(QWIXX, state, 1, _never_drawn)  # action 2 is the active seat's
    assert hooks.scores(QWIXX, state, 2) == (3, 0)


def test_the_match_layer_declines_even_when_a_mark_is_legal() -> None:
    # White sum 6 fits red after 5: marking is legal (and good), the stand-in still declines.
    state = _position([Sheet.of(red=(2, 5)), Sheet()], (3, 3))
    assert MarkWhiteSum(Colour.RED, 6) in QWIXX.legal_moves(state, 0)
    assert hooks_for("qwixx").stand_in_move(QWIXX, state, 0, _never_drawn) == Decline()
