"""The appliance's own messages in Spanish and English, short enough for a 128x64 screen.

`say(key, **args)` gives a two-language `Names` label the renderer shows in the display's
language. An argument may itself be a `Names` (a category's name), used in its language.
Rule errors from the engine become short messages by their stable `rule` id.
"""

from __future__ import annotations

from typing import Any

from firmware.ui.screens import Names

MESSAGES: dict[str, tuple[str, str]] = {
    # menus
    "main_menu": ("Cubilete", "Cubilete"),
    "new_game": ("Nueva partida", "New game"),
    "resume": ("Continuar partida", "Resume game"),
    "last_game": ("Última partida", "Last game"),
    "settings": ("Ajustes", "Settings"),
    "game": ("Juego", "Game"),
    "players": ("Jugadores", "Players"),
    "house_rules": ("Reglas", "House rules"),
    "stake": ("Apuesta/punto", "Stake/point"),
    "order": ("Orden", "Order"),
    "order_roll_off": ("sorteo", "roll-off"),
    "order_fixed": ("fijo", "fixed"),
    "start": ("Empezar", "Start"),
    "back": ("Volver", "Back"),
    "none": ("ninguna", "none"),
    "no_stake": ("sin", "none"),
    "on": ("sí", "on"),
    "off": ("no", "off"),
    "language": ("Idioma", "Language"),
    "contrast": ("Brillo", "Brightness"),
    "camera_test": ("Probar cámara", "Camera test"),
    "info": ("Información", "About"),
    "usb_copy_all": ("Copiar todo al USB", "Copy all to USB"),
    "usb_requested": ("Copia pedida", "Copy requested"),
    "usb_request_failed": ("No se pudo pedir", "Could not ask"),
    "hint_menu": ("OK elige, largo vuelve", "OK picks, hold: back"),
    "hint_edit": ("< > cambia, OK listo", "< > change, OK done"),
    "abandon_q": ("¿Abandonar partida?", "Abandon the game?"),
    "abandon_line": ("Los puntos quedan", "Scores stay in the log"),
    "abandon": ("Abandonar partida", "Abandon game"),
    "main_menu_item": ("Menú principal", "Main menu"),
    # turn
    "turn_menu": ("Turno de {player}", "{player}'s turn"),
    "throw_dice": ("Tire los dados", "Throw the dice"),
    "throw_all": ("Tire los {n} dados", "Throw all {n} dice"),
    "throw_or_pick": ("Tire o elija", "Throw or pick"),
    "pick_box": ("Elija casilla", "Pick a box"),
    "turn_a_die": ("Voltee un dado", "Turn a die over"),
    "dice_seen": ("{seen} de {n} dados", "{seen} of {n} dice seen"),
    "die_cocked": ("Dado {die} montado: tírelo", "Die {die} cocked: rethrow"),
    "unreadable": ("No leo los dados", "Cannot read the dice"),
    "unread_object": ("Algo sin leer: revise", "Something unread: check"),
    "object_on_tray": ("Quite el objeto", "Remove the object"),
    "unstable": ("Lectura inestable", "Reading unstable"),
    "moving": ("Espere: dados rodando", "Wait: dice rolling"),
    "confirm_first": ("Confirme el dado {die}", "Confirm die {die} first"),
    "no_throws_left": ("Sin tiros: anote", "No throws left: score"),
    "scored": ("{player}: {category} {points}", "{player}: {category} {points}"),
    "scratched": ("{player}: tacha {category}", "{player}: {category} crossed"),
    "score_q": ("¿Anotar {category}?", "Score {category}?"),
    "scratch_q": ("¿Tachar {category}?", "Cross out {category}?"),
    "points_line": ("{points} puntos", "{points} points"),
    "scratch_line": ("0 puntos (tachar)", "0 points (cross out)"),
    "ok_confirms": ("OK anota, < > no", "OK scores, < > cancel"),
    "correct_die": ("Corregir dado", "Correct a die"),
    "undo_throw": ("Anular tiro", "Cancel last throw"),
    "undo_throw_q": ("¿Anular el tiro?", "Cancel the throw?"),
    "undo_throw_line": ("Nadie lo tiró", "Nobody threw it"),
    "throw_undone": ("Tiro anulado", "Throw cancelled"),
    "undo_last": ("Deshacer anotación", "Undo last score"),
    "undo_q": ("¿Deshacer?", "Undo?"),
    "undo_line": ("{player}: {category} {points}", "{player}: {category} {points}"),
    "undone": ("Deshecho: {player}", "Undone: {player}"),
    "nothing_to_undo": ("Nada que deshacer", "Nothing to undo"),
    "score_table": ("Ver tabla", "Score table"),
    "table": ("Tabla", "Scores"),
    # corrections
    "which_die": ("¿Qué dado?", "Which die?"),
    "die_value": ("Dado {die}: valor", "Die {die}: value"),
    "die_which": ("Dado {die}: ¿{a} o {b}?", "Die {die}: {a} or {b}?"),
    "die_sure_q": ("Dado {die}: ¿es {a}?", "Die {die}: is it {a}?"),
    "other": ("otro", "other"),
    "check_die": ("Revisar dado", "Check die"),
    "die_thrown_q": ("Dado {die}: ¿tirado?", "Die {die}: thrown?"),
    "die_turned_q": ("Dado {die}: ¿volteado?", "Die {die}: turned over?"),
    "turned_to": ("{a} pasa a {b}", "{a} becomes {b}"),
    "yes": ("sí", "yes"),
    "no": ("no", "no"),
    "corrected": ("Corregido", "Corrected"),
    # roll-off
    "roll_off": ("Sorteo de orden", "Roll-off"),
    "roll_off_throw": ("{player}: tire", "{player}: throw"),
    "roll_off_again": ("Empate: tiran de nuevo", "Tie: throw again"),
    "roll_off_hand": ("{player}: {dice}", "{player}: {dice}"),
    "first_player": ("Empieza {player}", "{player} starts"),
    # game over
    "instant_win_by": ("{player}: {win}", "{player}: {win}"),
    # device
    "stopped": ("Detenido", "Stopped"),
    "config_problem": ("Config: {key}", "Config: {key}"),
    "config_defaults": ("usa valores de fábrica", "using the defaults"),
    "log_moved": ("Registro dañado", "Log damaged"),
    "log_moved_line": ("guardado aparte", "kept aside"),
    "new_log": ("registro nuevo", "new log started"),
    "camera": ("Cámara", "Camera"),
    "camera_lost": ("Sin cámara", "No camera"),
    "camera_no_dice": ("sin dados", "no dice"),
    "version": ("Versión {v}", "Version {v}"),
    "games_stored": ("{n} partidas", "{n} games"),
    "disk_free": ("{mb} MB libres", "{mb} MB free"),
    "abandoned": ("Partida abandonada", "Game abandoned"),
    "not_saved": ("¡No se guardó! Memoria", "Not saved! Storage"),
    "storage_retry": ("no se anota nada", "nothing is recorded"),
}

# Engine rule ids (engine.errors) -> message keys above or their own text.
RULE_MESSAGES: dict[str, tuple[str, str]] = {
    "max_throws": ("Sin tiros: anote", "No throws left: score"),
    "first_throw_all_dice": ("1er tiro: todos", "1st throw: all dice"),
    "held_dice_locked": ("Dado apartado: no", "Held dice stay held"),
    "held_die_unchanged": ("Dado apartado cambió", "A held die changed"),
    "no_throw_after_turn_over": ("Ya volteó: anote", "Turned over: score"),
    "nothing_thrown": ("No se tiró nada", "Nothing was thrown"),
    "throw_first": ("Tire primero", "Throw first"),
    "turn_required": ("Voltee un dado antes", "Turn a die over first"),
    "turn_after_second_throw": ("Volteo tras 2º tiro", "Turn after 2nd throw"),
    "turn_die_once": ("Ese dado ya volteó", "Die already turned"),
    "at_most_two_turned": ("Máximo 2 volteos", "At most 2 turned"),
    "turned_die_opposite_face": ("Volteo: cara opuesta", "Turn: opposite face"),
    "no_turning_in_game": ("Aquí no se voltea", "No turning here"),
    "crossing_out": ("No tache: hay puntos", "Can't cross: boxes score"),
    "category_filled": ("Casilla ya anotada", "Box already filled"),
    "fill_order": ("Casilla aún cerrada", "Box not open yet"),
    "correct_current_throw": ("Nada que corregir", "Nothing to correct"),
    "undo_needs_a_fill": ("Nada que deshacer", "Nothing to undo"),
    "undo_throw_needs_a_throw": ("Nada que anular", "No throw to cancel"),
    "game_over": ("Partida terminada", "The game is over"),
    "wrong_player": ("No es su turno", "Not their turn"),
    "dice_count": ("Faltan dados", "Wrong number of dice"),
    "points_mismatch": ("Puntos cambiaron", "Points changed"),
}


def say(key: str, /, **args: Any) -> Names:
    """A message in both languages; Names arguments are taken in each language. `key` is
    positional-only so that a message may itself take a `key` argument ("config_problem")."""
    es, en = MESSAGES[key]
    return Names(es=es.format(**_in(args, "es")), en=en.format(**_in(args, "en")))


def rule_message(rule: str, fallback: str = "") -> Names:
    """The short message for an engine rule error."""
    if rule in RULE_MESSAGES:
        es, en = RULE_MESSAGES[rule]
        return Names(es=es, en=en)
    text = fallback or rule
    return Names(es=f"Regla: {text}", en=f"Rule: {text}")


def _in(args: dict[str, Any], lang: str) -> dict[str, Any]:
    return {k: (getattr(v, lang) if isinstance(v, Names) else v) for k, v in args.items()}


# House-rule options of the engine's games, by key; unknown keys are shown as they are.
OPTION_LABELS: dict[str, tuple[str, str]] = {
    "held_dice_locked": ("Apartados fijos", "Held dice locked"),
    "generala_points": ("Puntos generala", "Generala points"),
    "first_throw_bonus": ("Bonus servida", "Served bonus"),
    "double_generala": ("Doble generala", "Double generala"),
    "wrap_straights": ("Escalera circular", "Wrap straights"),
    "rules": ("Reglas", "Rules"),
    "throws": ("Tiros", "Throws"),
    "turn_breaks_de_mano": ("Volteo: de huevo", "Turn breaks de mano"),
    "turn_required": ("Volteo obligado", "Turn required"),
    "partnerships": ("Parejas", "Partnerships"),
}


def option_label(key: str) -> Names:
    es, en = OPTION_LABELS.get(key, (key.replace("_", " "), key.replace("_", " ")))
    return Names(es=es, en=en)


def value_label(value: object) -> Names | str:
    if isinstance(value, bool):
        return say("on") if value else say("off")
    return str(value)

MESSAGES.update({
    "unsure_rethrow": ("Dado {die} dudoso: tire", "Die {die} unsure: rethrow"),
    "partnerships": ("Parejas", "Partnerships"),
    "start_over_q": ("¿Empezar otra?", "Start another?"),
    "start_over_line": ("La actual se cierra", "The current one closes"),
    # parts and storage that are missing or failing
    "buttons_missing": ("Sin botones", "No buttons"),
    "buttons_wire": ("Botones: GPIO {pins}", "Buttons: GPIO {pins}"),
    "buttons_scoring": ("Se puntúa sin elegir", "Scoring, no picking"),
    "buttons_back": ("Botones listos", "Buttons ready"),
    "storage_full": ("Memoria llena", "Storage full"),
    "storage_not_writable": ("Memoria protegida", "Storage not writable"),
    "storage_error": ("Error de memoria", "Storage error"),
    "storage_log_kept": ("registro intacto", "the log is kept"),
})
