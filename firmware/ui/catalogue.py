"""Every text the device shows, in Spanish and English: one catalogue, one wording per key.

Templates use str.format fields; a template may be a {"one": ..., "other": ...} pair chosen
by the `n` argument. Category and game names come from the engine's definitions (name_es /
name_en) through `Names`, shortened for the display here, and a `Names` argument is filled
in in the language being drawn.

Two ways to use a message: `T(key, **args)` (firmware.ui.screens) keeps the key and is looked
up when the screen is drawn; `say(key, **args)` gives both languages at once as `Names`, which
the appliance keeps for flashes and titles. Rule errors from the engine become short messages
by their stable `rule` id (`rule_message`), house-rule options have their labels
(`option_label`), and the engine's reasons on an option row their short notes (`note`).
Games, boxes and instant wins have short display names (`game_name`, `short`): the
engine's names are the full ones, for the export and the command line.

A missing key or argument never breaks a screen: the key or the template itself is shown and
logged.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from firmware.ui.screens import Label, Names, Text

log = logging.getLogger("cubilete.ui")

LANGUAGES = ("es", "en")

Template = str | Mapping[str, str]

MESSAGES: dict[str, dict[str, Template]] = {
    # the turn
    "throw_k_of_n": {"es": "Tiro {k} de {n}", "en": "Throw {k} of {n}"},
    "throw_the_dice": {"es": "Tirar los dados", "en": "Throw the dice"},
    "waiting_throw": {"es": "Esperando la tirada", "en": "Waiting for a throw"},
    "dice_seen": {"es": "{seen} de {expected} dados vistos", "en": "{seen} of {expected} dice seen"},
    "die_which": {"es": "Dado {die}: ¿{a} o {b}?", "en": "Die {die}: {a} or {b}?"},
    "die_unsure": {"es": "Dado {die}: ¿qué valor?", "en": "Die {die}: which value?"},
    "dice_unsure": {"es": "Revisar dados {dice}", "en": "Check dice {dice}"},
    "die_cocked": {"es": "Dado {die} montado: tírelo", "en": "Die {die} cocked: rethrow"},
    "hand_in_view": {"es": "Mano en la bandeja", "en": "Hand over the tray"},
    "dice_moving": {"es": "Dados en movimiento", "en": "Dice still moving"},
    "too_many_dice": {"es": "Hay {seen} dados, son {expected}", "en": "{seen} dice seen, need {expected}"},
    "turn_die_first": {"es": "Girar un dado antes", "en": "Turn a die first"},
    "die_turned": {"es": "Dado {die} girado", "en": "Die {die} turned"},
    "no_throws_left": {"es": "Sin tiros: anote", "en": "No throws left: score"},
    "ok_to_score": {"es": "OK: anotar", "en": "OK: score"},
    "scored": {"es": "{player}: {category} {points}", "en": "{player}: {category} {points}"},
    "next_player": {"es": "Turno de {name}", "en": "{name}'s turn"},
    "instant_win": {"es": "¡Ganó servida!", "en": "Instant win!"},
    "bank": {"es": "Tiros guardados: {n}", "en": "Banked throws: {n}"},
    # menus
    "new_game": {"es": "Nueva partida", "en": "New game"},
    "game": {"es": "Juego", "en": "Game"},
    "house_rules": {"es": "Reglas de la casa", "en": "House rules"},
    "players": {"es": "Jugadores", "en": "Players"},
    "player_n": {"es": "Jugador {n}", "en": "Player {n}"},
    "names": {"es": "Nombres", "en": "Names"},
    "stake": {"es": "Apuesta/punto", "en": "Stake/point"},
    "no_stake": {"es": "sin", "en": "none"},
    "order": {"es": "Orden", "en": "Order"},
    "order_rolloff": {"es": "A los dados", "en": "Roll-off"},
    "order_fixed": {"es": "fijo", "en": "fixed"},
    "start": {"es": "Empezar", "en": "Start"},
    "resume": {"es": "Continuar partida", "en": "Resume game"},
    "settings": {"es": "Ajustes", "en": "Settings"},
    "language": {"es": "Idioma", "en": "Language"},
    "lang_es": {"es": "Español", "en": "Español"},
    "lang_en": {"es": "English", "en": "English"},
    "brightness": {"es": "Brillo", "en": "Brightness"},
    "scores": {"es": "Tanteo", "en": "Scores"},
    "about": {"es": "Acerca de", "en": "About"},
    "back": {"es": "Volver", "en": "Back"},
    "yes": {"es": "Sí", "en": "Yes"},
    "no": {"es": "No", "en": "No"},
    "on": {"es": "sí", "en": "on"},
    "off": {"es": "no", "en": "off"},
    "hint_menu": {"es": "OK elige, largo vuelve", "en": "OK picks, hold: back"},
    "hint_edit": {"es": "◀▶ cambiar  OK listo", "en": "◀▶ change  OK done"},
    "hint_back": {"es": "OK largo: volver", "en": "Hold OK: back"},
    "roll_off": {"es": "Sorteo de orden", "en": "Roll-off"},
    "roll_off_throw": {"es": "{player}: tire", "en": "{player}: throw"},
    "roll_off_tie": {"es": "Empate: otra vez", "en": "Tie: throw again"},
    # corrections
    "correct": {"es": "Corregir", "en": "Correct"},
    "correct_die": {"es": "Corregir dado", "en": "Correct a die"},
    "choose_die": {"es": "Elegir el dado", "en": "Choose the die"},
    "die_value": {"es": "Dado {die}: valor", "en": "Die {die}: value"},
    "confirm_die": {"es": "Confirmar dado", "en": "Confirm die"},
    "die_turned_q": {"es": "¿Dado {die} girado?", "en": "Die {die} turned?"},
    # dice by hand (no camera, or the camera unsure)
    "by_hand": {"es": "Dados a mano", "en": "Dice by hand"},
    "hand_first": {"es": "OK: dados a mano", "en": "OK: enter the dice"},
    "hand_more": {"es": "Elija; largo: tirar", "en": "Pick; hold: throw"},
    "hand_record": {"es": "OK: anotar el tiro", "en": "OK: record the throw"},
    "undo": {"es": "Deshacer", "en": "Undo"},
    "undo_last": {"es": "Deshacer lo último", "en": "Undo the last score"},
    "undo_score": {"es": "{name}: {category} {points}", "en": "{name}: {category} {points}"},
    "undone": {"es": "Deshecho: {player}", "en": "Undone: {player}"},
    # game over
    "game_over": {"es": "Fin", "en": "Final"},
    "winner": {"es": "Gana {name}", "en": "{name} wins"},
    "tie": {"es": "Empate", "en": "Tie"},
    "settlement": {"es": "Cuentas", "en": "Settlement"},
    "pays": {"es": "paga", "en": "pays"},
    "gets": {"es": "cobra", "en": "gets"},
    # service, camera, USB
    "starting": {"es": "Arrancando…", "en": "Starting…"},
    "stopped": {"es": "Detenido", "en": "Stopped"},
    "stopped_body": {"es": "Servicio detenido", "en": "Service stopped"},
    "scores_kept": {"es": "Puntos guardados", "en": "Scores are kept"},
    "camera_lost": {"es": "Sin cámara", "en": "Camera lost"},
    "camera_lost_body": {"es": "Revisar el cable", "en": "Check the cable"},
    "camera_back": {"es": "Cámara lista", "en": "Camera back"},
    "retry_in": {"es": "Reintento en {seconds} s", "en": "Retry in {seconds} s"},
    "usb_exporting": {"es": "Copiando al USB", "en": "Copying to USB"},
    "usb_do_not_remove": {"es": "No retirar el USB", "en": "Do not remove it"},
    "usb_done": {"es": "USB listo", "en": "USB done"},
    "usb_games_exported": {"es": {"one": "{n} partida exportada", "other": "{n} partidas exportadas"},
                           "en": {"one": "{n} game exported", "other": "{n} games exported"}},
    "usb_safe_to_remove": {"es": "Ya se puede retirar", "en": "Safe to remove"},
    "usb_failed": {"es": "Error en el USB", "en": "USB export failed"},
    "usb_nothing": {"es": "Nada nuevo que copiar", "en": "Nothing new to copy"},
    "config_problem": {"es": "Config: {key}", "en": "Config: {key}"},
    "config_defaults": {"es": "Se usan valores por defecto", "en": "Using the defaults"},
    "error": {"es": "Error", "en": "Error"},
    # menus (the appliance's)
    "main_menu": {"es": "Cubilete", "en": "Cubilete"},
    "last_game": {"es": "Última partida", "en": "Last game"},
    "order_roll_off": {"es": "sorteo", "en": "roll-off"},
    "none": {"es": "ninguna", "en": "none"},
    "contrast": {"es": "Brillo", "en": "Brightness"},
    "camera_test": {"es": "Probar cámara", "en": "Camera test"},
    "info": {"es": "Información", "en": "About"},
    "hint": {"es": "Consejo", "en": "Hint"},
    "hint_expected": {"es": "total esperado {x}", "en": "expected total {x}"},
    "hint_no_table": {"es": "Sin tabla; créela con", "en": "No table yet; make it"},
    "fairness": {"es": "Dados justos", "en": "Dice fairness"},
    "fairness_all": {"es": "{n} tiros, p{p}", "en": "{n} throws, p{p}"},
    "fairness_today": {"es": "Hoy {n} tiros, p{p}", "en": "Today {n}, p{p}"},
    "fairness_ok": {"es": "Nada indica carga", "en": "No sign of loading"},
    "fairness_few": {"es": "Pocos tiros: {n}/{need}", "en": "Few throws: {n}/{need}"},
    "fairness_warning": {"es": "¡Revise los dados!", "en": "Check the dice!"},
    "fairness_alert": {"es": "¿Dados cargados?", "en": "Dice may be loaded"},
    "fairness_alert_line": {"es": "No pasan la prueba", "en": "Fairness test failed"},
    "fairness_see": {"es": "Ajustes > Dados justos", "en": "Settings: Dice fairness"},
    "fairness_see_short": {"es": "Ver Ajustes > Dados", "en": "See Settings > Dice"},
    "scoreboard": {"es": "Marcador", "en": "Scoreboard"},
    "scoreboard_open": {"es": "Escanee o abra:", "en": "Scan or open:"},
    "usb_copy_all": {"es": "Copiar todo al USB", "en": "Copy all to USB"},
    "usb_requested": {"es": "Copia pedida", "en": "Copy requested"},
    "usb_request_failed": {"es": "No se pudo pedir", "en": "Could not ask"},
    "abandon_q": {"es": "¿Abandonar?", "en": "Abandon the game?"},
    "abandon_line": {"es": "Los puntos quedan", "en": "Scores stay in the log"},
    "abandon": {"es": "Abandonar partida", "en": "Abandon game"},
    "main_menu_item": {"es": "Menú principal", "en": "Main menu"},
    # the turn (the appliance's)
    "turn_menu": {"es": "Turno de {player}", "en": "{player}'s turn"},
    "throw_dice": {"es": "Tire los dados", "en": "Throw the dice"},
    "throw_all": {"es": "Tire los {n} dados", "en": "Throw all {n} dice"},
    "throw_or_pick": {"es": "Tire o elija", "en": "Throw or pick"},
    "pick_box": {"es": "Elija casilla", "en": "Pick a box"},
    "turn_a_die": {"es": "Voltee un dado", "en": "Turn a die over"},
    "unreadable": {"es": "No leo los dados", "en": "Cannot read the dice"},
    "unread_object": {"es": "Algo sin leer: revise", "en": "Something unread: check"},
    "object_on_tray": {"es": "Quite el objeto", "en": "Remove the object"},
    "unstable": {"es": "Lectura inestable", "en": "Reading unstable"},
    "moving": {"es": "Espere: dados rodando", "en": "Wait: dice rolling"},
    "confirm_first": {"es": "Confirme el dado {die}", "en": "Confirm die {die} first"},
    "scratched": {"es": "{player}: tacha {category}", "en": "{player}: {category} crossed"},
    "score_q": {"es": "¿Anotar {category}?", "en": "Score {category}?"},
    "scratch_q": {"es": "¿Tachar {category}?", "en": "Cross out {category}?"},
    "ok_confirms": {"es": "OK anota  ◀▶ no", "en": "OK scores  ◀▶ cancel"},
    "undo_throw": {"es": "Anular tiro", "en": "Cancel last throw"},
    "undo_throw_q": {"es": "¿Anular el tiro?", "en": "Cancel the throw?"},
    "undo_throw_line": {"es": "Nadie lo tiró", "en": "Nobody threw it"},
    "throw_undone": {"es": "Tiro anulado", "en": "Throw cancelled"},
    "undo_q": {"es": "¿Deshacer?", "en": "Undo?"},
    "undo_line": {"es": "{player}: {category} {points}", "en": "{player}: {category} {points}"},
    "nothing_to_undo": {"es": "Nada que deshacer", "en": "Nothing to undo"},
    "score_table": {"es": "Ver tabla", "en": "Score table"},
    "table": {"es": "Tabla", "en": "Scores"},
    # the practice opponent: a seat the device plays itself
    "device_seat": {"es": "Juega {name}", "en": "{name} plays"},
    "device_throw": {"es": "Tire por {player}", "en": "Throw for {player}"},
    "device_keep": {"es": "Aparte {dice} y tire", "en": "Keep {dice}, throw"},
    "device_rethrow_all": {"es": "Tire todos otra vez", "en": "Throw them all again"},
    "device_turn": {"es": "Voltee el {value}", "en": "Turn the {value} over"},
    "device_scores": {"es": "OK: {player} anota", "en": "OK: {player} scores"},
    "device_scratches": {"es": "OK: {player} tacha", "en": "OK: {player} scratches"},
    "device_stands": {"es": "{player} se planta", "en": "{player} stands"},
    "device_replans": {"es": "Pidió {dice}: plan B", "en": "Asked {dice}: plan B"},
    "device_no_table": {"es": "{player}: sin tabla", "en": "{player}: no table"},
    "device_simple": {"es": "Juega simple, no óptimo.", "en": "Simple play, not best."},
    # corrections (the appliance's)
    "which_die": {"es": "¿Qué dado?", "en": "Which die?"},
    "die_sure_q": {"es": "Dado {die}: ¿es {a}?", "en": "Die {die}: is it {a}?"},
    "other": {"es": "otro", "en": "other"},
    "check_die": {"es": "Revisar dado", "en": "Check die"},
    "die_thrown_q": {"es": "Dado {die}: ¿tirado?", "en": "Die {die}: thrown?"},
    "turned_to": {"es": "{a} pasa a {b}", "en": "{a} becomes {b}"},
    "corrected": {"es": "Corregido", "en": "Corrected"},
    # roll-off
    "roll_off_again": {"es": "Empate: tiran de nuevo", "en": "Tie: throw again"},
    "roll_off_hand": {"es": "{player}: {dice}", "en": "{player}: {dice}"},
    "first_player": {"es": "Empieza {player}", "en": "{player} starts"},
    # device
    "log_moved": {"es": "Registro dañado", "en": "Log damaged"},
    "log_moved_line": {"es": "guardado aparte", "en": "kept aside"},
    "new_log": {"es": "registro nuevo", "en": "new log started"},
    "camera": {"es": "Cámara", "en": "Camera"},
    "camera_no_dice": {"es": "sin dados", "en": "no dice"},
    "version": {"es": "Versión {v}", "en": "Version {v}"},
    "games_stored": {"es": "{n} partidas", "en": "{n} games"},
    "disk_free": {"es": "{mb} MB libres", "en": "{mb} MB free"},
    "abandoned": {"es": "Partida abandonada", "en": "Game abandoned"},
    "not_saved": {"es": "¡No se guardó! Memoria", "en": "Not saved! Storage"},
    "storage_retry": {"es": "no se anota nada", "en": "nothing is recorded"},
    "unsure_rethrow": {"es": "Dado {die} dudoso: tire", "en": "Die {die} unsure: rethrow"},
    "partnerships": {"es": "Parejas", "en": "Partnerships"},
    "start_over_q": {"es": "¿Empezar otra?", "en": "Start another?"},
    "start_over_line": {"es": "La actual se cierra", "en": "The current one closes"},
    # parts and storage that are missing or failing
    "buttons_missing": {"es": "Sin botones", "en": "No buttons"},
    "buttons_wire": {"es": "Botones: GPIO {pins}", "en": "Buttons: GPIO {pins}"},
    "buttons_scoring": {"es": "Se puntúa sin elegir", "en": "Scoring, no picking"},
    "buttons_back": {"es": "Botones listos", "en": "Buttons ready"},
    "storage_full": {"es": "Memoria llena", "en": "Storage full"},
    "storage_not_writable": {"es": "Memoria protegida", "en": "Storage read-only"},
    "storage_error": {"es": "Error de memoria", "en": "Storage error"},
    "storage_log_kept": {"es": "registro intacto", "en": "the log is kept"},
    # dice by hand: cacho's turn-over without a camera (issue 18, the score sheet's part)
    "turn_over_item": {"es": "Voltear un dado", "en": "Turn a die over"},
    "hand_turn": {"es": "OK: voltear un dado", "en": "OK: turn a die over"},
    # -- issue 18: legible at a table (big numbers, one hint line, the winning throw, names) --
    "board_throw": {"es": "Tiro", "en": "Throw"},
    "board_total": {"es": "Total", "en": "Total"},
    "board_points": {"es": "Puntos", "en": "Points"},
    "confirm_hold": {"es": "OK largo: sí  ◀▶: no", "en": "Hold OK: yes  ◀▶: no"},
    "confirm_short": {"es": "OK: sí  ◀▶: no", "en": "OK: yes  ◀▶: no"},
    "scratch_note": {"es": "tachar: 0", "en": "crossed out: 0"},
    "win_title": {"es": "¡{win}!", "en": "{win}!"},
    "win_box": {"es": "Gana {name}", "en": "{name} wins"},
    "win_ends": {"es": "OK termina  ◀▶ no", "en": "OK ends it  ◀▶ cancel"},
    "win_in_turn": {"es": "¡Gana! OK: anotar", "en": "Wins! OK: score it"},
    "name_of": {"es": "Nombre del jugador {n}", "en": "Name of player {n}"},
    "name_hint": {"es": "◀▶ letra  OK sigue", "en": "◀▶ letter  OK next"},
    "name_taken": {"es": "{name} ya juega", "en": "{name} is playing"},
}

# Engine rule ids (engine.errors) -> their short messages.
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

# House-rule options of the engine's games, by key; unknown keys are shown as they are.
# Short enough to share a menu line with their value (tests/firmware/test_ui_fit.py).
OPTION_LABELS: dict[str, tuple[str, str]] = {
    "held_dice_locked": ("Apartados fijos", "Held dice stay"),
    "generala_points": ("Puntos generala", "Generala points"),
    "first_throw_bonus": ("Bonus servida", "Served bonus"),
    "double_generala": ("Doble generala", "Double generala"),
    "wrap_straights": ("Esc. circular", "Wrap straights"),
    "rules": ("Reglas", "Rules"),
    "throws": ("Tiros", "Throws"),
    "turn_breaks_de_mano": ("Volteo: de huevo", "Turned: de huevo"),
    "turn_required": ("Volteo obligado", "Turn required"),
    "partnerships": ("Parejas", "Partnerships"),
    # -- issue 18: every option of every game has a label --
    "joker": ("Comodín", "Joker"),
    "extra_bonus": ("Bonus extra", "Extra bonus"),
    "single_pair_in_two_pairs": ("Par = dos pares", "Pair = two pairs"),
    "served_first_throw_only": ("Servida: 1er tiro", "Served: 1st throw"),
    "rounds_to_win": ("Rondas a ganar", "Rounds to win"),
    "aces_high": ("As alto", "Aces high"),
}

# -- issue 18: short display names ------------------------------------------------------------
# The engine's names are the full ones (the export, `cubilete games`); the display uses these,
# short and distinct, so that nothing on a 128x64 panel is cut. By game id: (es, en).
GAME_NAMES: dict[str, tuple[str, str]] = {
    "general": ("General PR", "General PR"),
    "generala": ("Generala", "Generala"),
    "generala-classic": ("Generala var.", "Generala var."),
    "yacht": ("Yacht", "Yacht"),
    "crag": ("Crag", "Crag"),
    "cacho": ("Cacho", "Cacho"),
    "goldene-fuenfzig": ("Goldene 50", "Goldene 50"),
    "yahtzee": ("Yahtzee", "Yahtzee"),
    "kniffel": ("Kniffel", "Kniffel"),
    "yatzy": ("Yatzy", "Yatzy"),
    "escalero": ("Escalero", "Escalero"),
    "poker-dice": ("Póquer dados", "Poker dice"),
}

# Boxes and instant wins whose engine name is long, by that name (either language): the
# short form on the display. Names not listed are short already.
SHORT_NAMES: dict[str, str] = {
    "Four of a kind": "4 of a kind",
    "Three of a kind": "3 of a kind",
    "Five of a kind": "5 of a kind",
    "Small straight": "Sm straight",
    "Large straight": "Lg straight",
    "Little straight": "Straight 1-5",
    "Big straight": "Straight 2-6",
    "Escalera menor": "Esc. menor",
    "Escalera mayor": "Esc. mayor",
    "High straight": "High str.",
    "Low straight": "Low str.",
    "Even straight": "Even str.",
    "Odd straight": "Odd str.",
    "Escalera alta": "Esc. alta",
    "Escalera baja": "Esc. baja",
    "Escalera par": "Esc. par",
    "Escalera impar": "Esc. impar",
    "Second grande": "Grande 2",
    "Segunda grande": "Grande 2",
    "Golden fifty": "Golden 50",
    "Cincuenta de oro": "50 de oro",
    "Kleine Straße": "Kl. Straße",
    "Große Straße": "Gr. Straße",
    "Small general": "Sm general",
    "Double generala": "Generala x2",
    "Doble generala": "Generala x2",
    "Generala on the first throw": "Generala served",
    "Dormida (five of a face in one throw)": "Dormida",
    "Cuatro de cada número y grande": "Cuatro de cada",
    "Four of every face and a grande": "Four of each",
}

# House-rule values that are words, by value: (es, en).
VALUE_LABELS: dict[str, tuple[str, str]] = {
    "scarne": ("Scarne", "Scarne"),
    "forced": ("obligado", "forced"),
    "free": ("libre", "free"),
}

# The engine's reasons (engine/advice.py) as short notes on an option row.
NOTES: dict[str, dict[str, str]] = {
    "served": {"es": "servida", "en": "served"},
    "de_mano": {"es": "de mano", "en": "de mano"},
    "de_huevo": {"es": "de huevo", "en": "de huevo"},
    "scratch": {"es": "tachar", "en": "scratch"},
    "turn_required": {"es": "girar dado", "en": "turn a die"},
    "crossing_out_not_allowed": {"es": "no se tacha", "en": "no scratch"},
    "instant_win": {"es": "¡gana!", "en": "wins!"},
    "joker": {"es": "comodín", "en": "joker"},
    "joker_box": {"es": "no: comodín", "en": "no: joker"},
    "extra_bonus": {"es": "+bono", "en": "+bonus"},
}
_NOTE_ALIASES = {"de mano": "de_mano", "de huevo": "de_huevo", "turn required first": "turn_required",
                 "instant win": "instant_win"}


def message(key: str, lang: str, args: Mapping[str, Any] | None = None) -> str:
    """A catalogue message in a language, its fields filled in (a `Names` field in that language)."""
    args = {k: (getattr(v, lang) if isinstance(v, Names) else v) for k, v in (args or {}).items()}
    entry = MESSAGES.get(key)
    if entry is None:
        log.warning("no text for message %r", key)
        return key
    template = entry.get(lang) or entry["en"]
    if not isinstance(template, str):
        template = template["one"] if args.get("n") == 1 else template["other"]
    try:
        return template.format(**args)
    except (KeyError, IndexError, ValueError) as error:
        log.warning("message %r (%s) lacks %s", key, lang, error)
        return template


def say(key: str, /, **args: Any) -> Names:
    """A message in both languages at once. `key` is positional-only so that a message may
    itself take a `key` argument ("config_problem")."""
    return Names(es=message(key, "es", args), en=message(key, "en", args))


def rule_message(rule: str, fallback: str = "") -> Names:
    """The short message for an engine rule error; an unknown rule is shown by its text."""
    if rule in RULE_MESSAGES:
        es, en = RULE_MESSAGES[rule]
        return Names(es=es, en=en)
    text = fallback or rule
    return Names(es=f"Regla: {text}", en=f"Rule: {text}")


def option_label(key: str) -> Names:
    """A house-rule option's label; an unknown option by its key."""
    es, en = OPTION_LABELS.get(key, (key.replace("_", " "), key.replace("_", " ")))
    return Names(es=es, en=en)


def value_label(value: object) -> Names | str:
    """A house-rule option's value: booleans and known words in the language, the rest as they are."""
    if isinstance(value, bool):
        return say("on") if value else say("off")
    if isinstance(value, str) and value in VALUE_LABELS:
        es, en = VALUE_LABELS[value]
        return Names(es=es, en=en)
    return str(value)


def game_name(game_id: str, fallback: Names | None = None) -> Names:
    """A game's short name on the display (the engine's full name for a game not listed)."""
    if game_id in GAME_NAMES:
        es, en = GAME_NAMES[game_id]
        return Names(es=es, en=en)
    return fallback if fallback is not None else Names(es=game_id, en=game_id)


def short(names: Names) -> Names:
    """A box's or an instant win's name as the display shows it (SHORT_NAMES)."""
    return Names(es=SHORT_NAMES.get(names.es, names.es), en=SHORT_NAMES.get(names.en, names.en))


def note(reason: str, lang: str) -> str:
    """An engine reason as a short note; unknown reasons are shown as given."""
    reason_id = _NOTE_ALIASES.get(reason, reason)
    entry = NOTES.get(reason_id)
    return entry[lang] if entry else reason


def text(label: Label, lang: str) -> str:
    """Any Label as the string to draw."""
    if isinstance(label, str):
        return label
    if isinstance(label, Names):
        return label.es if lang == "es" else label.en
    if isinstance(label, Text):
        return message(label.key, lang, label.args)
    return str(label)

