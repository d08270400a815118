"""The game on screen: the turn, picking and confirming a box, the winning throw, the turn
menu (corrections, undo, the score table, leaving), and the final table. Throws seen by the
camera come in through `take_throw`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import engine
from engine import ScoreOption, score_options, turn_actions, win_option
from firmware.appliance import by_hand, corrections, hint, menus
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok, step
from firmware.appliance.session import GameSession
from firmware.appliance.throws import Answers, Ask, Ignore, Record, Refuse, TurnOver, plan_throw
from firmware.appliance.views import box_name, dice_icons, final_rows, last_fill, option_row, total_after
from firmware.ui.catalogue import game_name, note, rule_message, say, short
from firmware.ui.screens import (
    ConfirmScreen, GameOverScreen, Label, MenuItem, MenuScreen, Names, Screen, ScoreScreen, T,
    TurnScreen,
)

log = logging.getLogger(__name__)


# -- the turn --------------------------------------------------------------------------------------


@dataclass
class TurnMode(Mode):
    """Throw k of n: the dice and every box the player may fill, best first."""

    selected: int = 0
    in_game = True
    needs_camera = True

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        state = session.state
        actions = turn_actions(state)
        won = win_option(state)
        options = tuple(option_row(o) for o in ([won] if won is not None else score_options(state)))
        self.selected = min(self.selected, max(0, len(options) - 1))
        return TurnScreen(
            player=session.player_name,
            throw=state.turn.throw_number,
            throws=state.max_throws,
            dice=dice_icons(session),
            options=options,
            selected=self.selected if options and actions.throw_number else None,
            message=app.flash_label or self._hint(app, actions),
            total=state.sheets[state.current_player].total,
        )

    @staticmethod
    def _hint(app: Appliance, actions: engine.TurnActions) -> Label:
        session = app.session
        if session is not None and session.state.instant_win is not None and session.state.instant_win.open:
            return say("win_in_turn")
        if app.manual_camera:
            if actions.throw_number == 0:
                return say("hand_first")
            if actions.must_turn:
                return say("hand_turn")
            if actions.may_throw:
                return say("hand_more")
        if not app.camera_ok:
            return T("camera_lost")
        if actions.throw_number == 0:
            return say("throw_all", n=app.session.state.rules.dice) if app.session else say("throw_dice")
        if actions.must_turn:
            return say("turn_a_die")
        return say("throw_or_pick") if actions.may_throw else say("pick_box")

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        session = app.session
        assert session is not None
        if is_back(press):
            return TurnMenu(back=self)
        win = session.state.instant_win
        if win is not None and win.open:
            return WinConfirm() if is_ok(press) else None
        options = score_options(session.state)
        if step(press) and options:
            self.selected = (self.selected + step(press)) % len(options)
            return None
        if not is_ok(press):
            return None
        if session.state.turn.throw_number == 0:
            if app.manual_camera or not app.camera_ok:
                return by_hand.EnterDice.of(app, back=self)
            app.flash(say("throw_dice"))
            return None
        actions = turn_actions(session.state)
        if actions.must_turn and actions.may_turn and (app.manual_camera or not app.camera_ok):
            return by_hand.TurnOverByHand(back=self)  # no camera to see the die turned
        if not options:
            return None
        option = options[min(self.selected, len(options) - 1)]
        if not option.allowed:
            rule = "turn_required" if "turn_required" in option.reasons else "crossing_out"
            app.flash(rule_message(rule))
            return None
        return PickConfirm(option, back=self)


@dataclass
class PickConfirm(Mode):
    """"Score full house?": the dice, the points and the total it makes in big digits; a
    short OK records it, prev / next go back to the turn."""

    option: ScoreOption
    back: Mode
    in_game = True

    def _event(self, app: Appliance) -> dict:
        assert app.session is not None
        player = app.session.state.current_player
        if self.option.points == 0:
            return engine.events.category_scratched(player, self.option.category)
        return engine.events.category_scored(player, self.option.category, self.option.points)

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        name = box_name(self.option)
        scratch = self.option.points == 0
        title = say("scratch_q", category=name) if scratch else say("score_q", category=name)
        reason = next((r for r in self.option.reasons if r != "scratch"), None)
        shown: Label | None = say("scratch_note") if scratch else None
        if reason is not None:
            shown = Names(es=note(reason, "es"), en=note(reason, "en"))
        total = None if session.state.rules.match is not None else total_after(session.state, self._event(app))
        return ScoreScreen(title, dice_icons(session), self.option.points, total,
                           app.flash_label or say("ok_confirms"), shown)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press) or is_back(press):
            return self.back
        if not is_ok(press) or app.refuse_if_busy():
            return None
        session = app.session
        assert session is not None
        name = box_name(self.option)
        who = session.player_name
        if not app.record(self._event(app)):
            return self.back
        if self.option.points == 0:
            app.flash(say("scratched", player=who, category=name))
        else:
            app.flash(say("scored", player=who, category=name, points=self.option.points))
        return app.game_mode()


@dataclass
class WinConfirm(Mode):
    """The winning throw (a generala servida, a dormida): the dice and the win, the box it is
    written in with its points. A short OK writes it (category_scored of that box, so the
    sheet shows it) and the final table follows; prev / next go back to the turn, where the
    turn menu can still correct a die or take the throw back. A win with no box to write in
    (General's big general) only needs the OK."""

    in_game = True

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None and session.state.instant_win is not None
        state, win = session.state, session.state.instant_win
        option = win_option(state)
        name = short(Names(es=win.name_es, en=win.name_en))
        if option is None:
            return ScoreScreen(say("win_title", win=name), dice_icons(session), None, None,
                               app.flash_label or say("win_ends"), say("win_box", name=state.players[win.player]))
        total = total_after(state, engine.events.category_scored(win.player, option.category, option.points))
        return ScoreScreen(say("win_title", win=name), dice_icons(session), option.points, total,
                           app.flash_label or say("ok_confirms"),
                           say("win_box", name=state.players[win.player]))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            return TurnMode()
        if is_back(press):
            return TurnMenu(back=TurnMode())
        if not is_ok(press) or app.refuse_if_busy():
            return None
        session = app.session
        assert session is not None and session.state.instant_win is not None
        option = win_option(session.state)
        if option is None:
            return GameOver()
        if not app.record(engine.events.category_scored(session.state.instant_win.player, option.category,
                                                        option.points)):
            return TurnMode()
        return app.game_mode()


# -- the turn menu (long OK) ---------------------------------------------------------------------


@dataclass
class TurnMenu(Mode):
    back: Mode
    selected: int = 0
    in_game = True

    def _items(self, app: Appliance) -> list[tuple[Label, str]]:
        session = app.session
        assert session is not None
        actions = turn_actions(session.state)
        items: list[tuple[Label, str]] = []
        # Without a camera entering the dice, or turning one over, is the turn's main action:
        # first in the menu.
        hand = [(say("by_hand"), "by_hand")] if by_hand.may_enter(session) else []
        if app.manual_camera or not app.camera_ok:
            turn = [(say("turn_over_item"), "turn_over")] if actions.may_turn else []
            items, hand = turn + hand, []
        if actions.may_correct:
            items.append((say("correct_die"), "correct"))
        if actions.may_undo_throw:
            items.append((say("undo_throw"), "undo_throw"))
        if actions.may_undo:
            items.append((say("undo_last"), "undo"))
        items += hand
        if hint.may_hint(app):
            items.append((say("hint"), "hint"))
        items += [(say("score_table"), "table"), (say("main_menu_item"), "menu"),
                  (say("abandon"), "abandon"), (say("back"), "back")]
        return items

    def view(self, app: Appliance) -> Screen:
        items = self._items(app)
        self.selected = min(self.selected, len(items) - 1)
        assert app.session is not None
        return MenuScreen(say("turn_menu", player=app.session.player_name),
                          tuple(MenuItem(label) for label, _ in items), self.selected,
                          hint=app.flash_label or say("hint_menu"))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        items = self._items(app)
        if step(press):
            self.selected = (self.selected + step(press)) % len(items)
            return None
        if is_back(press):
            return app.game_mode()
        if not is_ok(press):
            return None
        action = items[min(self.selected, len(items) - 1)][1]
        if action == "correct":
            return corrections.CorrectDie(back=self)
        if action == "by_hand":
            return by_hand.EnterDice.of(app, back=self)
        if action == "turn_over":
            return by_hand.TurnOverByHand(back=self)
        if action == "undo":
            return UndoConfirm(back=self)
        if action == "undo_throw":
            return ThrowUndoConfirm(back=self)
        if action == "hint":
            return hint.Hint.of(app, back=self)
        if action == "table":
            return ScoreTable(back=self)
        if action == "menu":
            return menus.MainMenu()
        if action == "abandon":
            return AbandonConfirm(back=self)
        return app.game_mode()


@dataclass
class UndoConfirm(Mode):
    """Take back the last box filled: needs a long press of OK."""

    back: Mode
    in_game = True

    def view(self, app: Appliance) -> Screen:
        assert app.session is not None
        fill = last_fill(app.session.state)
        lines: tuple[Label, ...] = ()
        if fill is not None:
            lines = (say("undo_line", player=fill[0], category=fill[1], points=fill[2]),)
        if app.flash_label is not None:
            lines += (app.flash_label,)
        return ConfirmScreen(say("undo_q"), lines, hold_to_confirm=True)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            return self.back
        if not is_back(press) or app.refuse_if_busy():
            return None  # a short OK does not undo: it must be held
        assert app.session is not None
        fill = last_fill(app.session.state)
        if not app.record(engine.events.turn_undone()):
            return self.back
        if fill is not None:
            app.flash(say("undone", player=fill[0]))
        app.link = None
        return app.after_commit()


@dataclass
class ThrowUndoConfirm(Mode):
    """Take back the last throw (the tracker saw one nobody made: a bump, a nudge)."""

    back: Mode
    in_game = True

    def view(self, app: Appliance) -> Screen:
        lines: tuple[Label, ...] = (say("undo_throw_line"),)
        if app.flash_label is not None:
            lines += (app.flash_label,)
        return ConfirmScreen(say("undo_throw_q"), lines, hold_to_confirm=True)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            return self.back
        if not is_back(press) or app.refuse_if_busy():
            return None
        assert app.session is not None
        if not app.record(engine.events.throw_undone(app.session.state.current_player)):
            return self.back
        app.flash(say("throw_undone"))
        app.link = None  # the dice are matched to the throw before by where they lie
        return app.after_commit()


@dataclass
class AbandonConfirm(Mode):
    back: Mode
    in_game = True

    def view(self, app: Appliance) -> Screen:
        return ConfirmScreen(say("abandon_q"), (say("abandon_line"),), hold_to_confirm=True)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            return self.back
        if not is_back(press):
            return None
        app.close_game()
        app.flash(say("abandoned"))
        return menus.MainMenu()


@dataclass
class ScoreTable(Mode):
    """Every player's total so far, in play order."""

    back: Mode
    selected: int = 0
    in_game = True

    def view(self, app: Appliance) -> Screen:
        assert app.session is not None
        state = app.session.state
        items = tuple(MenuItem(("> " if p == state.current_player else "") + name, str(total))
                      for p, (name, total) in enumerate(zip(state.players, state.totals)))
        self.selected = min(self.selected, len(items) - 1)
        return MenuScreen(say("table"), items, self.selected, hint=say("hint_menu"))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        assert app.session is not None
        if step(press):
            self.selected = (self.selected + step(press)) % len(app.session.state.players)
            return None
        if is_ok(press) or is_back(press):
            return self.back
        return None


# -- the end of the game ----------------------------------------------------------------------------


@dataclass
class GameOver(Mode):
    """The final table: winners, totals, who pays whom. OK closes the game."""

    page: int = 0
    in_game = True

    def view(self, app: Appliance) -> Screen:
        assert app.session is not None
        state = app.session.state
        stake_given = state.stake is not None and state.stake > 0
        note: Label | None = app.flash_label
        if note is None and state.instant_win is not None:
            # The winner has the star in the table: the line says how they won.
            win = state.instant_win
            note = say("win_title", win=short(Names(es=win.name_es, en=win.name_en)))
        screen = GameOverScreen(game=game_name(state.game.id, Names.of(state.game)), rows=final_rows(state, stake_given),
                                money=app.defaults.money, note=note)
        self.page = min(self.page, screen.page_count - 1)
        return GameOverScreen(game=screen.game, rows=screen.rows, page=self.page,
                              money=screen.money, note=note)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        assert app.session is not None
        if step(press):
            pages = GameOverScreen(game="", rows=final_rows(app.session.state, False)).page_count
            self.page = (self.page + step(press)) % pages
            return None
        if is_back(press):
            if turn_actions(app.session.state).may_undo:
                return UndoConfirm(back=self)
            return None
        if is_ok(press):
            app.close_game()
            return menus.MainMenu()
        return None


# -- throws ------------------------------------------------------------------------------------------


def take_throw(app: Appliance, seen: ThrowSeen, answers: Answers = Answers()) -> Mode | None:
    """A settled throw during a game: record it, ask about it, or say why not."""
    session = app.session
    if session is None:
        return None
    if session.pending_confirmation:
        app.deferred = seen
        app.flash(say("confirm_first", die=session.die_number(session.pending_confirmation[0])))
        return None
    if session.state.finished:
        app.flash(rule_message("game_over"))
        return None
    plan = plan_throw(seen, session.state, session.throw, app.link, answers, watched=app.watched)
    if isinstance(plan, (Refuse, Ignore)):
        app.link = plan.link
        if plan.message is not None:
            app.flash(plan.message)
        return None
    if isinstance(plan, Ask):
        return corrections.AskThrown(seen=seen, dice=plan.dice, back=app.mode, previous=answers)
    if isinstance(plan, TurnOver):
        return corrections.ConfirmTurned.of(seen, plan, back=app.mode)
    assert isinstance(plan, Record)
    disputed = _locked_but_thrown(session, plan, answers)
    if disputed:
        # The rules say these dice stay set aside, the tracker says they were thrown: the
        # tracker may be wrong (a held die jostled), so the players say; if they confirm it
        # was thrown, the rule refuses the throw below.
        return corrections.AskThrown(seen=seen, dice=disputed, back=app.mode, previous=answers)
    snapshot = _snapshot(seen)
    if not app.record(plan.event, plan.reading, snapshot):
        app.link = plan.refused_link
        return None
    app.link = plan.link
    return app.game_mode()


def _locked_but_thrown(session: GameSession, plan: Record, answers: Answers) -> tuple[int, ...]:
    """Reading indices of dice the plan throws though they are locked aside and nobody has
    said yet that they were thrown."""
    state = session.state
    if not state.rules.held_dice_locked:
        return ()
    locked = state.turn.locked & set(plan.event["thrown"])
    return tuple(r for r, index in enumerate(plan.reading.index)
                 if index in locked and r not in answers.thrown)


def _snapshot(seen: ThrowSeen) -> bytes | None:
    if seen.snapshot is None:
        return None
    try:
        return seen.snapshot()
    except Exception as error:  # a throw is recorded even when its picture cannot be made
        log.warning("no snapshot for this throw: %s", error)
        return None
