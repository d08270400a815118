"""The advisor: optimal solitaire play of every sheet game, and advice for a turn.

It lives apart from `engine` because it needs numpy (the engine is standard library only,
so that the rules run anywhere and never break for a missing package). It reads the
engine's rules and asks the engine what dice score; it never scores dice itself.
"""
