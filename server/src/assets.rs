//! The pages' templates (minijinja, every one `.html` and so escaped by default: a name
//! or a log line in a page is text, never markup) and the static files (`static/`:
//! the style sheet and the live pages' script), both embedded in the binary.
//!
//! Not here: what the pages hold (`pages`). Nothing is read from the disk at run time,
//! so no request names a file: the static files are a fixed map from name to bytes.

use minijinja::Environment;

/// The static files, by name (`style.css`, `live.js`).
#[derive(Debug, rust_embed::RustEmbed)]
#[folder = "static/"]
pub struct Static;

/// Every template, by name.
const TEMPLATES: [(&str, &str); 8] = [
    ("base.html", include_str!("../templates/base.html")),
    ("leaderboard.html", include_str!("../templates/leaderboard.html")),
    ("entry.html", include_str!("../templates/entry.html")),
    ("game.html", include_str!("../templates/game.html")),
    ("games.html", include_str!("../templates/games.html")),
    ("stats.html", include_str!("../templates/stats.html")),
    ("submit.html", include_str!("../templates/submit.html")),
    ("error.html", include_str!("../templates/error.html")),
];

/// The templates, loaded.
pub fn templates() -> Environment<'static> {
    let mut env = Environment::new();
    for (name, source) in TEMPLATES {
        env.add_template(name, source).unwrap_or_else(|e| panic!("template {name}: {e}"));
    }
    env
}

/// A static file's bytes and content type, if `name` is one.
pub fn static_file(name: &str) -> Option<(Vec<u8>, &'static str)> {
    let file = Static::get(name)?;
    let kind = match name.rsplit('.').next() {
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    Some((file.data.into_owned(), kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_loads_and_escapes_what_it_is_given() {
        let env = templates();
        let page = env
            .get_template("error.html")
            .unwrap()
            .render(minijinja::context! { title => "t", status => 400, message => "<script>x</script>" })
            .unwrap();
        assert!(page.contains("&lt;script&gt;x") && !page.contains("<script>x"), "{page}");
        assert!(static_file("style.css").is_some() && static_file("live.js").is_some());
        assert!(static_file("../Cargo.toml").is_none() && static_file("").is_none());
    }
}
