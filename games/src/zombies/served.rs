//! Served calls: a zombies call as bytes, for a seat whose bot plays in a process of its
//! own while the referee alone runs the engine (`crate::isolate::lockstep`, served
//! mode), and the other end, which turns the bytes back into a [`Context`] and calls
//! the bot.
//!
//! A batch is the calls of one entry in one turn, in the turn's order (every call of a
//! turn sees the same snapshot, rules version 3): first the state of the entry's
//! generator of the turn (as the batch's first call finds it), then per call the
//! player, its position and bullets, the board's side and the non-empty cells of its
//! 17x17 view. The serving process draws the batch's random numbers from its own copy
//! of that generator, in call order, as the engine would have: the bot sees exactly
//! what it would see in the referee's process.
//!
//! This module is not the engine (`engine`) nor the program protocol (`program`), which
//! writes a call as text for a bot in another language.

use zombies_plugin_abi::abi_stable::std_types::{RSlice, RStr};
use zombies_plugin_abi::{Context, Id, VIEW_WIDTH, View};

use super::Zombies;
use crate::bot::Bot;
use crate::game::{GameRng, random_source};
use crate::replay::{ReplayError, get_varint, put_varint};

/// Cells in a view.
const CELLS: usize = VIEW_WIDTH * VIEW_WIDTH;

/// Added (wrapping) to a cell's owner in a batch, so that a zombie ([`Id::ZOMBIE`],
/// `u32::MAX`) and a dead body (`u32::MAX - 1`) take one byte, not five.
const OWNER_SHIFT: u32 = 2;

/// Appends the request of the call `ctx` to `batch` (a batch's first call also writes
/// the generator's state); `false` when its generator is not one of this host's.
pub(super) fn request(ctx: &Context<'_>, batch: &mut Vec<u8>) -> bool {
    if batch.is_empty() {
        let Some(rng) = crate::replay::generator_of(ctx.random) else {
            return false;
        };
        let state = serde_json::to_vec(&rng).expect("a generator serialises");
        put_varint(batch, state.len() as u64);
        batch.extend_from_slice(&state);
    }
    for v in [ctx.clock, ctx.id.owner, ctx.id.number, ctx.bullets, ctx.x, ctx.y, ctx.board_size] {
        put_varint(batch, u64::from(v));
    }
    // The count goes first, as a two-byte varint (any count of a view's 289 cells fits),
    // written once the cells are.
    let count_at = batch.len();
    batch.extend_from_slice(&[0, 0]);
    let mut seen = 0u64;
    let (cells, stride) = (ctx.view.cells.as_slice(), ctx.view.stride);
    for y in 0..VIEW_WIDTH {
        // A row of the view is a run of the board's cells (`View::get`, row by row).
        let row = cells.get(y * stride..).unwrap_or(&[]);
        let row = &row[..row.len().min(VIEW_WIDTH)];
        // The row's occupied cells as a bit mask, read without a branch per cell (most
        // cells are empty), then visited bit by bit.
        let mut occupied = occupied_mask(row);
        while occupied != 0 {
            let x = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            let id = row[x];
            seen += 1;
            put_varint(batch, (y * VIEW_WIDTH + x) as u64);
            put_varint(batch, u64::from(id.owner.wrapping_add(OWNER_SHIFT)));
            put_varint(batch, u64::from(id.number));
        }
    }
    batch[count_at] = (seen as u8 & 0x7f) | 0x80;
    batch[count_at + 1] = (seen >> 7) as u8;
    true
}

/// Bit `x` set for each occupied cell of `row` (at most [`VIEW_WIDTH`] cells).
#[inline]
fn occupied_mask(row: &[Id]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if row.len() == VIEW_WIDTH {
        return occupied_mask_sse2(row);
    }
    row.iter().enumerate().fold(0u32, |m, (x, id)| m | (u32::from(!id.is_empty()) << x))
}

/// [`occupied_mask`] of a whole row, four cells at a time: their `number`s (empty when
/// 0, [`Id::is_empty`]) compared with zero and their signs gathered into four bits. SSE2
/// is part of x86-64 itself. (What the compiler made of the fold, with a variable shift
/// per cell that SSE2 does not have, was most of the referee's time in strict mode.)
#[cfg(target_arch = "x86_64")]
#[inline]
fn occupied_mask_sse2(row: &[Id]) -> u32 {
    use std::arch::x86_64::{
        _mm_castps_si128, _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_ps, _mm_movemask_ps, _mm_setzero_si128,
        _mm_shuffle_ps,
    };
    // An `Id` is two `u32`s, `owner` then `number` (`repr(C)`).
    const { assert!(size_of::<Id>() == 8 && std::mem::offset_of!(Id, number) == 4) };
    assert_eq!(row.len(), VIEW_WIDTH);
    let mut empty = 0u32;
    for chunk in 0..4 {
        // SAFETY: cells `4 * chunk .. 4 * chunk + 4` are in `row` (17 long): two
        // unaligned 16-byte loads of its memory; SSE2 is always there on x86-64.
        unsafe {
            let at = row.as_ptr().add(4 * chunk).cast::<f32>();
            let (a, b) = (_mm_loadu_ps(at), _mm_loadu_ps(at.add(4)));
            // The odd lanes: the four cells' `number`s.
            let numbers = _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(a, b));
            let zero = _mm_cmpeq_epi32(numbers, _mm_setzero_si128());
            empty |= (_mm_movemask_ps(_mm_castsi128_ps(zero)) as u32) << (4 * chunk);
        }
    }
    empty |= u32::from(row[16].is_empty()) << 16;
    !empty & ((1 << VIEW_WIDTH) - 1)
}

/// One call of a batch, read back.
struct Call {
    id: Id,
    clock: u32,
    bullets: u32,
    x: u32,
    y: u32,
    side: u32,
    cells: Vec<Id>,
    /// The cells its read set (indices into `cells`).
    set: Vec<u16>,
}

fn read_u32(bytes: &[u8], at: &mut usize) -> Result<u32, ReplayError> {
    u32::try_from(get_varint(bytes, at)?)
        .map_err(|_| ReplayError::Corrupt("a served call's number is out of range".into()))
}

/// Reads the call at `*at` into `call` (whose cells are all empty on entry).
fn read_call(bytes: &[u8], at: &mut usize, call: &mut Call) -> Result<(), ReplayError> {
    let mut v = [0u32; 7];
    for x in &mut v {
        *x = read_u32(bytes, at)?;
    }
    let [clock, owner, number, bullets, x, y, side] = v;
    (call.id, call.clock, call.bullets, call.x, call.y, call.side) = (Id { owner, number }, clock, bullets, x, y, side);
    let seen = get_varint(bytes, at)?;
    if seen > CELLS as u64 {
        return Err(ReplayError::Corrupt(format!("a served call sees {seen} cells of {CELLS}")));
    }
    for _ in 0..seen {
        let i = get_varint(bytes, at)? as usize;
        let id = Id { owner: read_u32(bytes, at)?.wrapping_sub(OWNER_SHIFT), number: read_u32(bytes, at)? };
        *call
            .cells
            .get_mut(i)
            .ok_or_else(|| ReplayError::Corrupt(format!("a served call's cell {i} is outside the view")))? = id;
        call.set.push(i as u16);
    }
    Ok(())
}

/// Empties the cells of `call` that its last read set (the rest are empty already).
fn clear(call: &mut Call) {
    for &i in &call.set {
        call.cells[usize::from(i)] = Id::EMPTY;
    }
    call.set.clear();
}

/// A call with an empty view.
fn empty_call() -> Call {
    Call { id: Id::EMPTY, clock: 0, bullets: 0, x: 0, y: 0, side: 0, cells: vec![Id::EMPTY; CELLS], set: Vec::new() }
}

/// The context of a call read back.
fn context<'a>(c: &'a Call, names: &'a [RStr<'a>], rng: &'a mut GameRng) -> Context<'a> {
    Context {
        id: c.id,
        bullets: c.bullets,
        clock: c.clock,
        x: c.x,
        y: c.y,
        board_size: c.side,
        view: View::new(&c.cells, VIEW_WIDTH),
        names: RSlice::from_slice(names),
        random: random_source(rng),
    }
}

/// Plays the batch `batch` on `bot`, each call with its own context, drawing from the
/// batch's generator in call order; the number of calls. A bot that prefetches is told
/// every call of the batch first, as the engine would.
pub(super) fn serve(batch: &[u8], names: &[String], bot: &mut dyn Bot<Zombies>) -> Result<usize, ReplayError> {
    let mut at = 0;
    let len = get_varint(batch, &mut at)? as usize;
    let state =
        batch.get(at..at.saturating_add(len)).ok_or_else(|| ReplayError::Corrupt("a served batch is cut".into()))?;
    let mut rng: GameRng =
        serde_json::from_slice(state).map_err(|e| ReplayError::Corrupt(format!("a served batch's generator: {e}")))?;
    at += len;
    let names: Vec<RStr<'_>> = names.iter().map(|n| n.as_str().into()).collect();
    if !bot.prefetches() {
        // One call at a time, in one view's memory, kept from batch to batch (its cells
        // empty between calls).
        thread_local! {
            static CALL: std::cell::RefCell<Option<Call>> = const { std::cell::RefCell::new(None) };
        }
        let mut call = CALL.with(|c| c.borrow_mut().take()).unwrap_or_else(empty_call);
        let mut calls = 0;
        let played = (|| {
            while at < batch.len() {
                clear(&mut call);
                read_call(batch, &mut at, &mut call)?;
                calls += 1;
                // What the bot answers is recorded by the wrapper around it.
                let _ = bot.turn(&context(&call, &names, &mut rng));
            }
            Ok(calls)
        })();
        clear(&mut call);
        CALL.with(|c| *c.borrow_mut() = Some(call));
        return played;
    }
    // A bot that prefetches is told every call first, as the engine would: all are read
    // before the first is made.
    let mut calls = Vec::new();
    while at < batch.len() {
        let mut call = empty_call();
        read_call(batch, &mut at, &mut call)?;
        calls.push(call);
    }
    // Prefetching draws nothing: it sees a copy of the generator.
    let mut scratch = rng.clone();
    for c in &calls {
        bot.prefetch(&context(c, &names, &mut scratch));
    }
    for c in &calls {
        let _ = bot.turn(&context(c, &names, &mut rng));
    }
    Ok(calls.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::BotError;
    use crate::zombies::engine::{Config, Engine};
    use zombies_plugin_abi::Action;

    /// What a bot can see of a call, and the first random numbers it would draw.
    type Seen = (Id, u32, u32, u32, u32, u32, Vec<(i32, i32, Id)>, Vec<String>, [u64; 3]);

    fn seen(ctx: &Context<'_>) -> Seen {
        let names = ctx.names.iter().map(|n| n.to_string()).collect();
        let draws = [ctx.random.next_u64(), ctx.random.next_u64(), ctx.random.next_u64()];
        let visible = ctx.visible().collect();
        (ctx.id, ctx.bullets, ctx.clock, ctx.x, ctx.y, ctx.board_size, visible, names, draws)
    }

    /// Serves every call of its seat in another "process" (bytes and back) and checks
    /// that the served bot sees what the engine's context holds.
    struct Echo {
        checked: std::rc::Rc<std::cell::Cell<u32>>,
    }

    impl Bot<Zombies> for Echo {
        fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
            let mut batch = Vec::new();
            assert!(request(ctx, &mut batch), "the engine's generator is recognised");
            let names: Vec<String> = ctx.names.iter().map(|n| n.to_string()).collect();
            let mut served = None;
            let mut probe = |c: &Context<'_>| {
                served = Some(seen(c));
                Action::go(c.random_move())
            };
            assert_eq!(serve(&batch, &names, &mut probe).unwrap(), 1);
            assert_eq!(served.unwrap(), seen(ctx));
            self.checked.set(self.checked.get() + 1);
            Ok(Action::go(ctx.random_move()))
        }
    }

    #[test]
    fn a_served_call_sees_what_the_engine_shows_and_draws_the_same_numbers() {
        let checked = std::rc::Rc::new(std::cell::Cell::new(0));
        let names = vec!["A".to_owned(), "B".to_owned()];
        let config = Config { players_per_entry: 20, max_turns: Some(30) };
        let mut bots: Vec<Box<dyn Bot<Zombies>>> =
            (0..2).map(|_| Box::new(Echo { checked: std::rc::Rc::clone(&checked) }) as Box<dyn Bot<Zombies>>).collect();
        Engine::new(names, 11, config).play(&mut bots);
        assert!(checked.get() > 100, "only {} calls checked", checked.get());
    }

    #[test]
    fn each_call_of_a_batch_sees_its_own_view_and_only_it() {
        // A crowded view (a player, a zombie and a body: owners of one and five bytes),
        // then an empty one, in one batch: the second call sees none of the first's.
        let mut crowded = vec![Id::EMPTY; 20 * 20];
        crowded[0] = Id { owner: 3, number: 1 };
        crowded[5 * 20 + 16] = Id { owner: Id::ZOMBIE, number: 200 };
        crowded[16 * 20 + 16] = Id { owner: Id::DEAD_BODY, number: 70_000 };
        let empty = vec![Id::EMPTY; 20 * 20];
        let mut rng: GameRng = rand::SeedableRng::seed_from_u64(5);
        let names = vec!["A".to_owned(); 4];
        let rnames: Vec<RStr<'_>> = names.iter().map(|n| n.as_str().into()).collect();
        fn call<'a>(cells: &'a [Id], number: u32, names: &'a [RStr<'a>], rng: &'a mut GameRng) -> Context<'a> {
            Context {
                id: Id { owner: 3, number },
                bullets: 2,
                clock: 9,
                x: 4,
                y: 7,
                board_size: 20,
                view: View::new(cells, 20),
                names: RSlice::from_slice(names),
                random: random_source(rng),
            }
        }
        let mut batch = Vec::new();
        let mut expected = Vec::new();
        for (cells, number) in [(&crowded, 1), (&empty, 2), (&crowded, 3)] {
            let ctx = call(cells, number, &rnames, &mut rng);
            assert!(request(&ctx, &mut batch));
            expected.push((ctx.id, ctx.visible().collect::<Vec<_>>()));
        }
        assert_eq!(expected[0].1.len(), 3);
        let mut served = Vec::new();
        let mut probe = |c: &Context<'_>| {
            served.push((c.id, c.visible().collect::<Vec<_>>()));
            Action::go(zombies_plugin_abi::Direction::N)
        };
        assert_eq!(serve(&batch, &names, &mut probe).unwrap(), 3);
        assert_eq!(served, expected);
    }

    #[test]
    fn a_rows_occupied_cells_are_found_four_at_a_time_as_one_by_one() {
        let mut rng: GameRng = rand::SeedableRng::seed_from_u64(9);
        for _ in 0..2_000 {
            let row: Vec<Id> = (0..VIEW_WIDTH)
                .map(|_| {
                    let number = match rand::RngExt::random_range(&mut rng, 0..4u32) {
                        0 => 0,
                        1 => 0x8000_0000,
                        2 => u32::MAX,
                        _ => rand::RngExt::random_range(&mut rng, 1..1_000u32),
                    };
                    let owner = rand::RngExt::random_range(&mut rng, 0..3u32).wrapping_sub(2);
                    Id { owner, number }
                })
                .collect();
            let one_by_one = row.iter().enumerate().fold(0u32, |m, (x, id)| m | (u32::from(!id.is_empty()) << x));
            assert_eq!(occupied_mask(&row), one_by_one, "{row:?}");
            assert_eq!(occupied_mask(&row[..9]), one_by_one & 0x1ff);
        }
    }

    #[test]
    fn bad_batches_are_refused_without_a_call() {
        let mut called = 0;
        let mut bot = |_: &Context<'_>| {
            called += 1;
            Action::go(zombies_plugin_abi::Direction::N)
        };
        for bad in [&[][..], &[5, b'{'][..], &[200, 1][..]] {
            assert!(serve(bad, &[], &mut bot).is_err(), "{bad:?}");
        }
        assert_eq!(called, 0);
    }
}
