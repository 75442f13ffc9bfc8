//! The bundled Easter Egg Hunt bots: each loads and plays, and the smart ones beat random.
