"""The documentation a clone holds links only to files in the clone, and the README opens with
what a newcomer needs: the two commands, what the studio is and for whom, its jobs, a glossary."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def _docs():
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_relative_link_points_inside_the_repository():
    broken = []
    for doc in _docs():
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto
            path = (doc.parent / target).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                broken.append(f"{doc.relative_to(ROOT)} → {target}")
    assert broken == []


def test_the_readme_links_the_scoring_contract_which_defines_every_number():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/scoring-contract.md)" in readme and "../shared/docs/scoring-spec" not in readme
    contract = (ROOT / "docs" / "scoring-contract.md").read_text(encoding="utf-8")
    for formula in ("Δ = 1 − S² / (|V′| · |V″|)", "GD(T′, C_i) = exp(10 · Ω(T′, C_i))",
                    "W_i = 1 / (1 + log2 |C_i|)", "TC_j = sqrt( exp(12 · θ_j)"):
        assert formula in contract


def test_every_document_is_reachable_from_the_readme_through_the_docs_index():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/README.md)" in readme and "](LICENSE)" in readme
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert pages - linked == set()
    assert {"../CONTRIBUTING.md", "../CHANGELOG.md", "../LICENSE"} <= linked


def test_the_readme_opens_with_the_two_commands_then_what_and_who_the_jobs_and_a_glossary():
    """The first two code blocks are the install-and-start command and the test command that
    ``.ci/run`` runs, byte for byte; then, before any other section, what the studio is and for
    whom, its three jobs and a glossary defining every symbol the README uses."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", text, re.S)
    assert blocks[0] == "python3 -m pip install -e '.[gui]' && gindex-studio"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci.endswith(blocks[1]) and blocks[1].endswith("python3 -m pytest -q")
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads[:3] == ["What it is, and who it is for", "Its three jobs", "Glossary"]
    what = text.split("## What it is, and who it is for\n\n", 1)[1].split("\n\n", 1)[0]
    assert len(what.splitlines()) == 5 and "for researchers" in what
    jobs = text.split("## Its three jobs\n", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\d\. \*\*", jobs, re.M)) == 3
    glossary = text.split("## Glossary\n", 1)[1].split("\n## ", 1)[0]
    terms = re.findall(r"^\| (.+?) \|", glossary, re.M)
    for term in ("**Δ** (divergence)", "**θ**", "**Ω**", "**ρ**", "**TC**", "**g-index**", "**profile**",
                 "curriculum", "GD", "leak", "companion"):
        assert term in terms, term
    delta = next(line for line in glossary.splitlines() if line.startswith("| **Δ**"))
    assert "from 0" in delta and "to 1" in delta  # Δ's scale, stated where Δ is defined
    first_use = text.index("profile")
    assert first_use > text.index("## Glossary")  # nothing uses "profile" before it is explained


def test_the_documents_speak_to_users_not_to_the_team():
    """No words of the team's own process in what a user reads."""
    for doc in _docs():
        text = doc.read_text(encoding="utf-8")
        for word in (r"\bissue \d+", r"\bissue notes\b", r"\blast stop\b", r"\bthe issue\b", r"\.\./shared/"):
            assert not re.search(word, text), f"{doc.relative_to(ROOT)}: {word}"
