//! The eggs replay viewer: the page is self-contained and draws every turn.
