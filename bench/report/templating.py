"""The static site's templates (`report/templates/*.html`, Jinja2) and assets (`report/static/`), packaged with
sentibench: `render` fills a template, `asset` reads a stylesheet or script, which every page inlines (a site
fetches nothing at view time)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent


@cache
def environment():
    """The Jinja2 environment: HTML autoescaped, blocks trimmed, undefined names an error."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)


def asset(name: str):
    """A file of `report/static/`, marked safe to inline (it holds no `</`, so it cannot close its element)."""
    from markupsafe import Markup

    text = (HERE / "static" / name).read_text(encoding="utf-8")
    if "</" in text:
        raise ValueError(f"report/static/{name} holds '</', which would close the element it is inlined in")
    return Markup(text)


def render(template: str, **context) -> str:
    """`report/templates/<template>` filled with `context`."""
    return environment().get_template(template).render(**context)
