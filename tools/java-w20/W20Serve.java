package zombie;

import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * Workload W20 (docs/performance.md) on the 2014 control program's own engine
 * (`zombie.Game`, unchanged but for its per-turn HTML pages): 10 entries of its
 * `StandStill` and 10 of its `MoveRandomly`, 50 players each (a 130x130 board, as the
 * program sizes it), whole games one after the other on this thread.
 *
 * Warms up for `args[0]` seconds and prints "warm TURNS_PER_SECOND"; then for each line
 * read plays for `args[1]` seconds and prints that chunk's turns per second, so that a
 * script can alternate it, chunk by chunk, with another program on the same core while
 * this JVM stays warm.
 */
public class W20Serve {
    static double play(double seconds) {
        long start = System.nanoTime(), end = start + (long) (seconds * 1e9), turns = 0;
        while (System.nanoTime() < end) {
            Game game = new Game();
            game.initializeBoard();
            while (game.playersLeft()) {
                game.doTurn();
                turns++;
            }
        }
        return turns / ((System.nanoTime() - start) / 1e9);
    }

    public static void main(String[] args) throws Exception {
        PlayerRegistry.clear();
        Game.registerSystemPlayers();
        for (int i = 0; i < 10; i++) PlayerRegistry.registerPlayer("Stay" + i, new player.StandStill());
        for (int i = 0; i < 10; i++) PlayerRegistry.registerPlayer("Walk" + i, new player.MoveRandomly());
        System.out.printf("warm %.1f%n", play(Double.parseDouble(args[0])));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        double chunk = Double.parseDouble(args[1]);
        while (in.readLine() != null) {
            System.out.printf("%.1f%n", play(chunk));
            System.out.flush();
        }
    }
}
