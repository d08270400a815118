"""The rules of every Cubilete game: games as data, pure scoring functions, turns and events.

Standard library only. The engine knows nothing of cameras, buttons or displays.
"""
