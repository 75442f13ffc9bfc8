/* A real shared library that exports neither zombies_bot_entry nor a root module. */
int unrelated_function(int x) { return x + 1; }
