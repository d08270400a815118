"""Every text the screens show, in Spanish and English, keyed by message id.

Templates use str.format fields; a template may be a {"one": ..., "other": ...} pair chosen
by the `n` argument. Spanish uses infinitives for instructions ("Tirar los dados"), which
read right in Spain and in the River Plate alike. Category and game names do not live here:
they come from the engine's definitions (name_es / name_en) through `Names`.

A missing key or argument never breaks a screen: the key itself is shown and logged.
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
    "die_cocked": {"es": "Dado {die} inclinado", "en": "Die {die} is cocked"},
    "hand_in_view": {"es": "Mano en la bandeja", "en": "Hand over the tray"},
    "dice_moving": {"es": "Dados en movimiento", "en": "Dice still moving"},
    "too_many_dice": {"es": "Hay {seen} dados, son {expected}", "en": "{seen} dice seen, need {expected}"},
    "turn_die_first": {"es": "Girar un dado antes", "en": "Turn a die first"},
    "die_turned": {"es": "Dado {die} girado", "en": "Die {die} turned"},
    "no_throws_left": {"es": "Sin tiros: anotar", "en": "No throws left: score"},
    "ok_to_score": {"es": "OK: anotar", "en": "OK: score"},
    "scored": {"es": "Anotado: {points}", "en": "Scored: {points}"},
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
    "no_stake": {"es": "Sin apuesta", "en": "No stake"},
    "order": {"es": "Orden", "en": "Order"},
    "order_rolloff": {"es": "A los dados", "en": "Roll-off"},
    "order_fixed": {"es": "Fijo", "en": "Fixed"},
    "start": {"es": "Empezar", "en": "Start"},
    "resume": {"es": "Seguir partida", "en": "Resume game"},
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
    "on": {"es": "Sí", "en": "On"},
    "off": {"es": "No", "en": "Off"},
    "hint_menu": {"es": "◀▶ mover  OK elegir", "en": "◀▶ move  OK select"},
    "hint_edit": {"es": "◀▶ cambiar  OK listo", "en": "◀▶ change  OK done"},
    "hint_back": {"es": "OK largo: volver", "en": "Hold OK: back"},
    "roll_off": {"es": "Sorteo del orden", "en": "Roll-off for order"},
    "roll_off_throw": {"es": "{name}: tirar", "en": "{name}: throw"},
    "roll_off_tie": {"es": "Empate: otra vez", "en": "Tie: throw again"},
    # corrections
    "correct": {"es": "Corregir", "en": "Correct"},
    "correct_die": {"es": "Corregir dado", "en": "Correct a die"},
    "choose_die": {"es": "Elegir el dado", "en": "Choose the die"},
    "die_value": {"es": "Dado {die}: valor", "en": "Die {die}: value"},
    "confirm_die": {"es": "Confirmar dado", "en": "Confirm die"},
    "die_turned_q": {"es": "¿Dado {die} girado?", "en": "Die {die} turned?"},
    "undo": {"es": "Deshacer", "en": "Undo"},
    "undo_last": {"es": "Deshacer lo último", "en": "Undo the last score"},
    "undo_score": {"es": "{name}: {category} {points}", "en": "{name}: {category} {points}"},
    "hold_ok_confirm": {"es": "Mantener OK: sí", "en": "Hold OK: yes"},
    "ok_confirm": {"es": "OK: sí", "en": "OK: yes"},
    "prev_next_cancel": {"es": "◀ ▶: cancelar", "en": "◀ ▶: cancel"},
    "undone": {"es": "Deshecho", "en": "Undone"},
    # game over
    "game_over": {"es": "Fin", "en": "Game over"},
    "winner": {"es": "Gana {name}", "en": "{name} wins"},
    "tie": {"es": "Empate", "en": "Tie"},
    "instant_win_by": {"es": "{name} ganó servida", "en": "{name}: instant win"},
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
    "config_problem": {"es": "Error de configuración", "en": "Config problem"},
    "config_defaults": {"es": "Se usan valores por defecto", "en": "Using the defaults"},
    "log_moved_aside": {"es": "Registro dañado apartado", "en": "Damaged log moved aside"},
    "error": {"es": "Error", "en": "Error"},
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
    """A catalogue message in a language, its fields filled in."""
    args = dict(args or {})
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


def money(cents: int, lang: str, currency: str = "") -> str:
    """A signed amount: '+12,50€' in Spanish, '+€12.50' in English; no currency: '+12,50'."""
    sign = "+" if cents > 0 else "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    number = f"{units},{rest:02d}" if lang == "es" else f"{units}.{rest:02d}"
    if not currency:
        return sign + number
    return f"{sign}{number}{currency}" if lang == "es" else f"{sign}{currency}{number}"
