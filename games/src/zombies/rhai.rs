//! The zombies game's Rhai bindings: what `ctx` offers a Rhai bot (`id`, `bullets`,
//! `clock`, `x`, `y`, `board_size`, `look`, `shootable`, `visible`), ids, `shoot(id)`
//! and `random_move()`, and how its answer reads. The sandbox and limits are
//! `loaders::scripts::rhai`'s. The bot answers a whole entry per turn, one call at a time
//! (`Bot::one_by_one`), so that its limits read the clock once per entry and turn.

use std::rc::Rc;
use std::sync::Arc;

use rhai::{Array, Dynamic, Engine, ImmutableString, Map};
use zombies_plugin_abi::{Action, Context, Direction, Id, VISION_RANGE};

use super::{Zombies, name_of, parse_move};
use crate::bot::{Bot, BotError, BotFactory};
use crate::loaders::scripts::rhai::{Fallible, RhaiVm, fail};
use crate::loaders::scripts::{Script, Slot};

type ZSlot = Slot<Context<'static>>;

/// `ctx` inside a Rhai script: reads go to the call in progress.
#[derive(Debug, Clone, Copy)]
struct RhaiCtx;

/// An id inside a Rhai script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ScriptId(Id);

/// What `shoot(id)` returns.
#[derive(Debug, Clone, Copy)]
struct Shot(Id);

/// Checks the script now (syntax, top-level code, `do_turn`) and makes its bots.
pub(super) fn bots(script: Script) -> Result<Arc<dyn BotFactory<Zombies>>, String> {
    RhaiVm::new(&script, api)?;
    let factory = move || {
        RhaiVm::new(&script, api).map(|vm| Box::new(RhaiBot(vm)) as Box<dyn Bot<Zombies>>).map_err(BotError::Failed)
    };
    Ok(Arc::new(factory))
}

struct RhaiBot(RhaiVm<Context<'static>>);

impl Bot<Zombies> for RhaiBot {
    /// A whole entry's calls of a turn in one call, made one by one (the default
    /// [`Bot::turn_all`]: one call of the VM per player, each with its own budget, deadline
    /// and verdict), so that the limits around the bot read the clock once per entry and
    /// turn, not per player.
    fn whole_entry(&self) -> bool {
        true
    }

    fn one_by_one(&self) -> bool {
        true
    }

    fn turn(&mut self, ctx: &Context<'_>) -> Result<Action, BotError> {
        if self.0.slot.names.borrow().len() != ctx.names.len() {
            *self.0.slot.names.borrow_mut() = ctx.names.iter().map(|n| n.as_str().to_owned()).collect();
        }
        let answer = self.0.call(ctx, ctx.random, Dynamic::from(RhaiCtx))?;
        // (Read without copying the answer first.)
        match answer.try_cast_result::<ImmutableString>() {
            Ok(text) => parse_move(&text),
            Err(answer) => match answer.try_cast_result::<Shot>() {
                Ok(Shot(id)) => Ok(Action::shoot(id)),
                Err(answer) => {
                    Err(BotError::Invalid(format!("do_turn returned {}, not a move or shoot(id)", answer.type_name())))
                }
            },
        }
    }
}

/// Registers the zombies API.
fn api(engine: &mut Engine, slot: &Rc<ZSlot>) {
    engine.register_type_with_name::<RhaiCtx>("Context");
    engine.register_type_with_name::<ScriptId>("Id");
    engine.register_type_with_name::<Shot>("Shot");

    macro_rules! ctx_field {
        ($name:literal, $get:expr) => {{
            let s = Rc::clone(slot);
            engine.register_get($name, move |_: &mut RhaiCtx| -> Fallible<Dynamic> {
                let ctx = s.ctx()?;
                Ok($get(ctx))
            });
        }};
    }
    ctx_field!("id", |c: &Context<'_>| Dynamic::from(ScriptId(c.id)));
    ctx_field!("bullets", |c: &Context<'_>| Dynamic::from(i64::from(c.bullets)));
    ctx_field!("clock", |c: &Context<'_>| Dynamic::from(i64::from(c.clock)));
    ctx_field!("x", |c: &Context<'_>| Dynamic::from(i64::from(c.x)));
    ctx_field!("y", |c: &Context<'_>| Dynamic::from(i64::from(c.y)));
    ctx_field!("board_size", |c: &Context<'_>| Dynamic::from(i64::from(c.board_size)));

    let s = Rc::clone(slot);
    engine.register_fn("look", move |_: &mut RhaiCtx, dx: i64, dy: i64| -> Fallible<Dynamic> {
        let ctx = s.ctx()?;
        let r = i64::from(VISION_RANGE);
        if !(-r..=r).contains(&dx) || !(-r..=r).contains(&dy) {
            return fail(format!("look({dx}, {dy}): offsets go from -8 to 8"));
        }
        Ok(ctx.look(dx as i32, dy as i32).map_or(Dynamic::UNIT, |id| Dynamic::from(ScriptId(id))))
    });
    let s = Rc::clone(slot);
    engine.register_fn("shootable", move |_: &mut RhaiCtx| -> Fallible<Array> {
        Ok(s.ctx()?.shootable().map(|(_, _, id)| Dynamic::from(ScriptId(id))).collect())
    });
    let s = Rc::clone(slot);
    engine.register_fn("visible", move |_: &mut RhaiCtx| -> Fallible<Array> {
        let seen = |(dx, dy, id): (i32, i32, Id)| {
            let mut map = Map::new();
            map.insert("dx".into(), Dynamic::from(i64::from(dx)));
            map.insert("dy".into(), Dynamic::from(i64::from(dy)));
            map.insert("id".into(), Dynamic::from(ScriptId(id)));
            Dynamic::from_map(map)
        };
        Ok(s.ctx()?.visible().map(seen).collect())
    });

    let s = Rc::clone(slot);
    engine
        .register_get("name", move |id: &mut ScriptId| -> ImmutableString { name_of(&s.names.borrow(), id.0).into() });
    engine.register_get("number", |id: &mut ScriptId| -> i64 { i64::from(id.0.number) });
    engine.register_fn("==", |a: ScriptId, b: ScriptId| a == b);
    engine.register_fn("!=", |a: ScriptId, b: ScriptId| a != b);
    let s = Rc::clone(slot);
    engine.register_fn("to_string", move |id: &mut ScriptId| {
        format!("{}#{}", name_of(&s.names.borrow(), id.0), id.0.number)
    });
    let s = Rc::clone(slot);
    engine.register_fn("to_debug", move |id: &mut ScriptId| {
        format!("{}#{}", name_of(&s.names.borrow(), id.0), id.0.number)
    });

    engine.register_fn("shoot", |id: ScriptId| Shot(id.0));
    let s = Rc::clone(slot);
    // The nine answers made once: a call hands out a shared one, not a new string.
    let moves: [ImmutableString; 9] = Direction::ALL.map(|d| d.name().into());
    engine.register_fn("random_move", move || -> Fallible<ImmutableString> {
        let drawn = s.ctx()?.random_move();
        Ok(moves[Direction::ALL.iter().position(|&d| d == drawn).unwrap_or(0)].clone())
    });
}
