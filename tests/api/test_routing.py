"""Routes whose URL builders are compiled on first use build exactly the URLs werkzeug's own do."""

from __future__ import annotations

from werkzeug.routing import Map, Rule

from api.http.routing import RuleBuildingOnFirstUse


def _values(rule: Rule) -> dict[str, object]:
    # a value for every variable part, some needing escaping, and a query argument
    return {**{name: f"v {name}/é" for name in rule.arguments}, "extra": "x y"}


def test_every_route_of_the_app_builds_the_url_werkzeugs_own_rule_builds(app):
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    assert len(rules) > 40
    assert all(type(rule) is RuleBuildingOnFirstUse for rule in rules)
    eager_rules = [Rule(r.rule, endpoint=r.endpoint, methods=r.methods) for r in rules]
    eager = Map(eager_rules, converters=app.url_map.converters).bind("localhost")
    lazy = app.url_map.bind("localhost")
    for rule in rules:
        for values in (_values(rule), {name: 7 for name in rule.arguments}):
            try:
                expected = eager.build(rule.endpoint, values, method=sorted(rule.methods or {"GET"})[0])
            except Exception as error:  # a converter may refuse the value: so must ours
                expected = repr(error)
            try:
                built = lazy.build(rule.endpoint, values, method=sorted(rule.methods or {"GET"})[0])
            except Exception as error:
                built = repr(error)
            assert built == expected, rule.rule


def test_a_builder_is_compiled_once_then_werkzeugs_own_is_called():
    url_map = Map([RuleBuildingOnFirstUse("/v1/matches/<match_id>", endpoint="match")]).bind("localhost")
    (rule,) = url_map.map.iter_rules()
    first, first_unknown = rule._build, rule._build_unknown
    assert url_map.build("match", {"match_id": "a b", "q": "1"}) == "/v1/matches/a%20b?q=1"
    assert rule._build_unknown is not first_unknown  # replaced by the compiled builder
    assert rule._build is first  # the other builder is compiled when it is first used
    assert rule.build({"match_id": "c", "q": "1"}, append_unknown=False) == ("", "/v1/matches/c")
    assert rule._build is not first
    assert url_map.build("match", {"match_id": "d"}) == "/v1/matches/d"
