package zombie;

/**
 * Stands in for the control program's Frege adapter, which needs the Frege runtime: W20
 * registers no Frege player, so it is never made.
 */
public class FregeAdapter implements Player {
    public final String name;

    public FregeAdapter(String className) {
        throw new UnsupportedOperationException("no Frege runtime in this build");
    }

    @Override
    public Action doTurn(PlayerContext context) {
        throw new UnsupportedOperationException();
    }
}
