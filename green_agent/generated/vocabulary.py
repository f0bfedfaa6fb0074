"""The words a theory is written in: predicate nouns and adjectives, and names of individuals.

The default vocabulary is **nonce**: made-up words ("every wumpus is a yumpus", "Tarq is brumpy"),
so no answer can come from world knowledge. ``everyday`` uses real words instead (cats, tall, Alice);
its theories still contradict the world freely ("every cat is a planet"), which makes it a test of
belief bias rather than a cleaner benchmark. The lists are tuples in a fixed order: the generator
draws from them by position, so editing a list changes the items (and needs a new generator version).
"""

from __future__ import annotations

from dataclasses import dataclass

_NONCE_NOUNS = (
    "wumpus yumpus zumpus dumpus rompus numpus tumpus vumpus impus jompus gorpus shumpus lempus sterpus "
    "grimpus lorpus brimpus dax blicket wug zorb glorp snib trel vosk quib plam frell brask chob drell "
    "gazzle hobb lurn mib norg prax skeff yarl fep toma zibble tove flurb grolt kweep pleen drax slorb "
    "eppet ozzle"
)
_NONCE_ADJECTIVES = (
    "brumpy feppy snarfy quazzy snoofy gribbly vashy trombly dorpish lunky wibbish frobby jarvy tazzy yoffy "
    "blenty crisk flenty grompy hurvy joffish klopsy lemmish morvy nusky pintish quorpy slompy vorpy "
    "cherpy dwemmy fribbish glumpish hebby kraddy mimsy rulvish skibby threnny wuzzy zeppish orpy ulvish "
    "ambly"
)
_NONCE_NAMES = (
    "Tarq Vell Brin Kessa Lumo Mirt Orrin Pell Quen Saff Tilo Varn Wenna Yorl Zeb Bex Cav Dree Fenn Gath "
    "Hask Iro Juvo Kal Lir Mox Nisk Osk Pim Rell Sarn Tesk Ulo Xan Yeva Zoll"
)
_EVERYDAY_NOUNS = (
    "cat dog bird fish/fish mammal reptile insect plant tree flower student teacher doctor artist musician "
    "painter farmer baker writer athlete child/children person/people mouse/mice wolf/wolves fox horse "
    "rabbit turtle frog eagle owl sheep/sheep deer/deer bus car boat house city/cities country/countries "
    "book song movie game animal vegetable fruit apple chair table machine robot planet"
)
_EVERYDAY_ADJECTIVES = (
    "red blue green happy sad big small tall short fast slow loud quiet bright dark warm cold soft hard "
    "young old rich poor kind brave shy calm busy famous clever heavy round wooden metallic furry spotted "
    "striped friendly honest curious gentle wild fierce"
)
_EVERYDAY_NAMES = (
    "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Ken Liam Mia Noah Olivia Paul Quinn Rosa Sam "
    "Tina Uma Victor Wendy Xavier Yara Zoe Ben Chloe Dan Emma Felix Gina"
)


@dataclass(frozen=True)
class Word:
    """A unary predicate: a noun ("is a wumpus") or an adjective ("is brumpy")."""

    text: str
    """The singular (nouns) or the adjective, lower case."""
    noun: bool
    """A noun takes an article and has a plural; an adjective does not."""
    plural: str = ""
    """The plural of a noun ("wumpuses"); empty for an adjective."""

    @property
    def symbol(self) -> str:
        """The FOL predicate, FOLIO-style: ``Wumpus``."""
        return self.text[:1].upper() + self.text[1:]


@dataclass(frozen=True)
class Name:
    """An individual: ``Tarq`` in English, the constant ``tarq`` in FOL."""

    text: str
    """The name as written in English."""

    @property
    def constant(self) -> str:
        """The FOL constant (lower case, as FOLIO writes constants)."""
        return self.text.lower()


@dataclass(frozen=True)
class Vocabulary:
    """Everything one vocabulary offers, in a fixed order."""

    name: str
    """``nonce`` or ``everyday``."""
    words: tuple[Word, ...]
    """Predicates: the nouns, then the adjectives."""
    names: tuple[Name, ...]
    """Individuals."""


def plural_of(noun: str) -> str:
    """The regular English plural: ``wumpus`` → ``wumpuses``, ``dax`` → ``daxes``, ``toma`` → ``tomas``."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def article(word: str) -> str:
    """``a`` or ``an`` before ``word`` (the lists hold no word whose sound disagrees with its spelling)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _nouns(text: str) -> tuple[Word, ...]:
    out = []
    for entry in text.split():
        singular, _, plural = entry.partition("/")
        out.append(Word(singular, True, plural or plural_of(singular)))
    return tuple(out)


def _vocabulary(name: str, nouns: str, adjectives: str, names: str) -> Vocabulary:
    words = _nouns(nouns) + tuple(Word(a, False) for a in adjectives.split())
    return Vocabulary(name, words, tuple(Name(n) for n in names.split()))


VOCABULARIES: dict[str, Vocabulary] = {
    "nonce": _vocabulary("nonce", _NONCE_NOUNS, _NONCE_ADJECTIVES, _NONCE_NAMES),
    "everyday": _vocabulary("everyday", _EVERYDAY_NOUNS, _EVERYDAY_ADJECTIVES, _EVERYDAY_NAMES),
}
"""The vocabularies by knob value (``vocabulary``)."""
