//! Test fixture: a library as built against `zombies-plugin-abi` 1.0. Its root module
//! has only the three 1.0 fields (no game, no other games' constructors) and it exports
//! no logger: the host must still load it as a zombies bot.

use abi_stable::export_root_module;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{ROk, RResult, RStr, RString};
use zombies_plugin_abi::any_version::{BotModule, BotModuleRef};
use zombies_plugin_abi::{ABI_VERSION, Action, Bot, Bot_TO, BotBox, Context};

/// Walks east.
#[derive(Debug)]
struct East;

impl Bot for East {
    fn turn(&mut self, _ctx: &Context<'_>) -> RResult<Action, RString> {
        ROk(Action::go(zombies_plugin_abi::Direction::E))
    }
}

extern "C" fn new_bot() -> RResult<BotBox, RString> {
    ROk(Bot_TO::from_value(East, TD_Opaque))
}

/// The root module, 1.0 fields only.
#[export_root_module]
pub fn root() -> BotModuleRef {
    BotModule { abi_version: ABI_VERSION, name: RStr::from_str("OldTimer"), new_bot }.leak_into_prefix()
}
