//! Test fixture: exports the root module by hand with `abi_version` one past the host's.

use abi_stable::export_root_module;
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RErr, RResult, RStr, RString};
use zombies_plugin_abi::{ABI_VERSION, BotBox, BotModule, BotModuleRef};

extern "C" fn new_bot() -> RResult<BotBox, RString> {
    RErr(RString::from("never called"))
}

/// The root module, one ABI version ahead.
#[export_root_module]
pub fn root() -> BotModuleRef {
    BotModule {
        abi_version: ABI_VERSION + 1,
        name: RStr::from_str("FutureBot"),
        new_bot,
        game: RStr::from_str("zombies"),
        new_eggs_bot: None,
        new_target_bot: None,
        new_hex_bot: None,
        set_logger: None,
        new_hex_side_bot: None,
        set_debugger: None,
        new_entry_bot: None,
    }
    .leak_into_prefix()
}
