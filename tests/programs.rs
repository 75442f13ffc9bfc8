//! Program bots: the process layer (limits, deadlines, late answers, no leaks) and each game's text protocol.
