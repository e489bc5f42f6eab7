package anchors

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The English lexicon natural phrases are cut with. There is no
// part-of-speech tagger: a word is classed by the closed-class lists below,
// a few lists of common verbs, and suffix heuristics; what none of them
// claims is an open-class word (a noun or an adjective), which may sit in a
// noun phrase. The lists are deliberately small and cover the function
// words of ordinary prose; they are not a dictionary.
//
// Closed classes (never the first or last word of a natural phrase, and
// never inside one, except "and"/"or" joining modifiers):
//   - determiners: articles, demonstratives, possessives, quantifiers and
//     number words (a, the, this, your, its, some, more, two, own, ...);
//     a token of digits only counts as a number word;
//   - prepositions (of, by, for, with, without, in, to, vs, down, ...);
//   - conjunctions (and, or, but, because, than, if, ...);
//   - pronouns, with their contractions (you, it, them, nothing, it's, ...);
//   - relative and question words (that, which, who, whose, where, how, ...);
//   - auxiliaries and modals, with negative contractions (is, are, was,
//     has, do, can, should, isn't, ...);
//   - closed adverbs (not, very, also, so, then, there, ...);
//   - common verbs in their base, third-person and irregular past forms
//     (gives, loses, means, choose, expect, buy, read, stay, gave, ...),
//     and those of how-to prose on other subjects (howToVerbs: knead,
//     afford, configure, ...).
//
// Verbs that are also nouns (care, fit, use, need, support, rate, match,
// waterproof, ...; in how-to prose plant, water, ride, paint, drill, ...:
// howToAmbiguous) are "ambiguous": context decides (see resolve). Suffix
// heuristics:
//   - "-ly" (five letters or more, not hyphenated, not in lyWords such as
//     "family", "supply", "daily") is an adverb;
//   - "-ed" (five letters or more, not in edWords such as "hundred",
//     "speed", "seabed") and the irregular participles (given, worn,
//     chosen, ...) are participles: an adjective directly before an
//     open-class word ("insulated jacket"), a verb otherwise ("is rated",
//     "boots treated with wax");
//   - "-ing" (five letters or more, not in ingWords such as "thing",
//     "spring", "evening") is a gerund or participle: a noun or modifier
//     ("sleeping bag", "comfort rating") unless it follows an auxiliary, a
//     subject pronoun or a plural noun, or takes an object (is followed by
//     a determiner or a pronoun: "choosing a bag"), or is a form of a
//     listed common verb ("buying", "getting", and gerundVerbs: "using");
//   - "-ize", "-ify" (six letters or more) are verbs, "-ized", "-ified"
//     participles and "-izing", "-ifying" gerunds ("vaporizes",
//     "pressurized");
//   - a lone letter other than "a" and "I" ("F" of "31°F") is no word.
//
// Other lists: verbLeaning and clauseVerbs (how ambiguous verbs lean),
// genericStarts (words a phrase does not start on: "best"), matchStopWords
// (words too generic to compare names by), foreign (function words of
// other Latin-script languages, which switch the lexicon off for a
// paragraph), units written after numbers ("lb", "mm").
//
// Known limits: a word is read in one sense only where the lists say so:
// "down" is a preposition, also where it names insulation ("down
// jackets"); "light" the noun and "light" the verb are told apart only by
// their neighbours; an unlisted verb after a noun may end a noun phrase
// ("the stove hisses"). Such phrases still have to name a target by its
// head noun and words to be offered.

// lexical classes of a word before context is looked at.
type class uint8

const (
	cOpen    class = iota // not in the lexicon: a noun or an adjective
	cDet                  // determiners, possessives, quantifiers, numbers
	cPrep                 // prepositions
	cConj                 // conjunctions
	cPron                 // pronouns
	cRel                  // relative and question words
	cAux                  // auxiliaries and modals
	cAdv                  // closed adverbs and "-ly" adverbs
	cVerb                 // common verbs (unambiguous forms)
	cAmbig                // verbs that are also nouns: context decides
	cPart                 // "-ed" words and irregular participles
	cGer                  // "-ing" words
	cBarrier              // no letter or digit, or letters of a non-Latin script
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var determiners = set(
	"a", "an", "the", "this", "these", "those", "my", "your", "his", "her", "its", "our", "their",
	"some", "any", "no", "every", "each", "either", "neither", "all", "both", "few", "fewer", "many",
	"much", "more", "most", "less", "least", "several", "such", "another", "other", "enough", "own",
	"same", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
	"twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "half", "twice", "lots",
	// units written after a number ("2 lb", "1,500 mm") belong to it
	"mm", "cm", "km", "ft", "oz", "lb", "lbs", "kg", "ml", "mph",
)

var prepositions = set(
	"about", "above", "across", "after", "against", "along", "alongside", "amid", "amidst", "among",
	"amongst", "around", "as", "at", "atop", "aboard", "regarding", "concerning",
	"before", "behind", "below", "beneath", "beside", "besides", "between", "beyond", "by", "despite",
	"down", "during", "except", "for", "from", "in", "inside", "into", "like", "near", "of", "off",
	"on", "onto", "out", "outside", "over", "past", "per", "since", "through", "throughout", "till",
	"to", "toward", "towards", "under", "underneath", "until", "unlike", "up", "upon", "via", "with",
	"within", "without", "vs", "versus", "v",
)

var conjunctions = set(
	"and", "or", "but", "nor", "yet", "because", "although", "though", "while", "whereas", "if",
	"unless", "whether", "than", "once", "lest",
)

var pronouns = set(
	"i", "me", "you", "he", "him", "she", "it", "we", "us", "they", "them", "myself", "yourself",
	"itself", "ourselves", "themselves", "himself", "herself", "yourselves", "oneself", "mine",
	"yours", "hers", "ours", "theirs", "someone", "somebody", "something", "anyone", "anybody",
	"anything", "everyone", "everybody", "everything", "nobody", "nothing", "none", "others",
	"it's", "that's", "there's", "here's", "what's", "who's", "let's", "i'm", "you're", "we're",
	"they're", "he's", "she's", "i've", "you've", "we've", "they've", "i'll", "you'll", "we'll",
	"they'll", "it'll", "he'll", "she'll", "i'd", "you'd", "we'd", "they'd", "he'd", "she'd",
)

// subjects are the pronouns after which the next word is a verb.
var subjects = set(
	"i", "you", "he", "she", "it", "we", "they", "nothing", "something", "everything", "anything",
	"someone", "everyone", "anyone", "nobody", "somebody", "everybody", "anybody",
)

// modals are the auxiliaries after which the next word is a verb's base
// form ("should replace", "don't need").
var modals = set(
	"do", "does", "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must",
	"cannot", "don't", "doesn't", "didn't", "can't", "couldn't", "won't", "wouldn't", "shouldn't",
	"mustn't",
)

var relatives = set(
	"that", "which", "who", "whom", "whose", "where", "when", "why", "how", "what", "whatever",
	"whichever", "whoever", "wherever", "whenever",
)

var auxiliaries = set(
	"be", "am", "is", "are", "was", "were", "been", "being", "have", "has", "had", "having", "do",
	"does", "did", "doing", "can", "could", "will", "would", "shall", "should", "may", "might",
	"must", "ought", "cannot", "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't",
	"can't", "couldn't", "won't", "wouldn't", "shouldn't", "mustn't", "hasn't", "haven't", "hadn't",
	"ain't",
)

var adverbs = set(
	"not", "very", "too", "also", "just", "only", "even", "still", "already", "always", "never",
	"often", "sometimes", "usually", "really", "quite", "rather", "almost", "here", "there", "then",
	"now", "so", "well", "again", "ever", "perhaps", "maybe", "instead", "however", "therefore",
	"thus", "otherwise", "yes", "indeed", "soon", "later", "away", "together", "else", "anyway",
	"ago", "especially", "hence", "far", "further", "farther", "anywhere", "everywhere", "somewhere",
	"nowhere", "likewise", "instead", "actually", "beforehand", "afterwards", "afterward", "meanwhile",
	"anymore", "regardless", "nearby",
	// directions after what they start from ("from the Starter Plan
	// upward"): a trial's hub could not link a plan named before one
	"upward", "upwards", "downward", "downwards", "onward", "onwards", "backwards", "forwards", "outwards",
	"inwards",
	// ordinals, in a noun phrase ("the first step") or after one ("read
	// our guide first"): a phrase is not cut on them
	"first", "next", "last",
)

// verbBases are common verbs that are rarely nouns: their base and
// third-person forms are verbs wherever they appear. Activities that name
// gear ("hike", "camp", "sleep", "pack", "run") are left out on purpose:
// "hiking boots" and "sleeping bag" are noun phrases.
var verbBases = []string{
	"accept", "achieve", "agree", "allow", "appear", "arrive", "ask", "assume", "avoid", "become",
	"begin", "believe", "belong", "bother", "bring", "buy", "choose", "come", "consider", "contain",
	"continue", "decide", "deliver", "depend", "deserve", "describe", "determine", "discover",
	"ensure", "enjoy", "expect", "explain", "feel", "find", "follow", "forget", "get", "give", "go",
	"happen", "hear", "hope", "include", "involve", "keep", "know", "learn", "leave", "let", "lose",
	"make", "manage", "mean", "meet", "mention", "notice", "obtain", "occur", "pay", "prefer",
	"prepare", "prevent", "produce", "promise", "protect", "prove", "provide", "put", "reach",
	"read", "realize", "receive", "recommend", "reduce", "remain", "remember", "remove", "replace",
	"require", "resist", "say", "see", "seem", "sell", "send", "show", "spend", "stay", "suggest",
	"suppose", "take", "tell", "tend", "think", "throw", "try", "understand", "want", "win", "wish",
	"wonder", "write", "beat", "carry", "compare", "weigh", "breathe", "absorb", "insulate", "apply",
	"rely", "imply", "multiply", "comply", "grab", "grow", "lend", "borrow", "add", "lie", "earn",
	"publish", "relax", "gather", "sputter", "behave", "enact", "prohibit", "affect", "dislike",
	"appreciate", "shrink", "invest", "maintain", "browse", "ignore", "lubricate", "recycle",
	"advise", "weaken", "soften", "loosen", "tighten", "flatten", "save", "shine", "dominate",
	"compensate", "overstate", "sit", "chase", "enable", "encourage", "deserve", "imagine",
	"reveal", "punish", "outcook", "vary", "settle", "exchange", "preheat", "pour", "hang", "wake",
	"shorten", "lengthen", "straighten", "widen", "fasten", "dampen", "harden", "restore", "soak",
	"teach", "remind", "recover", "adapt", "eat",
}

// howToVerbs are verbs of how-to and product prose outside the outdoor
// gear the lists above were first written for, grouped by the kind of
// site that writes them. Like verbBases they are rarely nouns, and their
// "-ing" forms rarely modify one ("kneading", "configuring"), so they are
// verbs wherever they stand. A verb whose noun or "-ing" form does modify
// ("plant pots", "baking soda", "serving size", "bathing suit") is in
// howToAmbiguous instead. The subject-verb-object rule (subjectsVerb)
// reads any other verb after a plural subject; these lists are for where
// no subject shows it: an imperative, a singular subject, "to".
var howToVerbs = []string{
	// cooking
	"knead", "marinate", "sift", "simmer", "saute", "sauté",
	// gardening
	"germinate", "repot", "overwater", "deadhead",
	// cycling and fitness
	"inflate", "deflate",
	// pets
	"adopt", "vaccinate", "neuter", "spay",
	// money
	"afford", "owe", "repay", "refinance", "withdraw", "deduct",
	// DIY
	"assemble", "renovate", "unscrew", "dismantle",
	// travel
	"explore", "unpack",
	// software
	"configure", "deploy", "compile", "delete", "disable", "reinstall", "uninstall",
}

// verbForms are irregular simple pasts (participles are in participles)
// and participles that do not modify nouns.
var verbForms = set(
	"became", "began", "came", "chose", "drew", "drove", "fell", "gave", "got", "grew", "knew", "ran",
	"rose", "sat", "saw", "shook", "stood", "struck", "swam", "took", "threw", "went", "woke", "wore",
	"wrote", "ate", "forgot", "lay", "rode", "flew",
	// participles that are not adjectives: "often called Z-poles"
	"called", "named", "considered", "labeled", "labelled",
)

// participles are irregular past participles and pasts that double as
// them: like "-ed" words, adjectives before a noun, verbs otherwise.
var participles = set(
	"become", "begun", "bought", "brought", "chosen", "done", "drawn", "driven", "eaten", "fallen",
	"felt", "found", "given", "gone", "grown", "held", "hidden", "kept", "known", "laid", "led",
	"lost", "made", "meant", "met", "paid", "ridden", "risen", "said", "seen", "sent", "shown",
	"sold", "spent", "stolen", "taken", "taught", "thought", "thrown", "told", "understood", "won",
	"worn", "written", "broken", "frozen", "sewn", "woven", "shrunk", "torn", "stuck", "built",
	"bent", "gotten", "forgotten", "fed", "flown", "swum", "dug", "sown",
)

// ambiguousBases are verbs that are also common nouns (or adjectives):
// "boot care" and "care for your boots", "ankle support" and "boots
// support your ankles". Their base and third-person forms are resolved by
// context.
var ambiguousBases = []string{
	"care", "fit", "use", "need", "support", "check", "test", "clean", "dry", "store", "work",
	"match", "rate", "cost", "last", "help", "matter", "wear", "hold", "treat", "wash", "plan",
	"review", "start", "stop", "set", "cover", "look", "seal", "rest", "offer", "increase",
	"decrease", "change", "repair", "waterproof", "layer", "heat", "pitch", "filter", "charge",
	"measure", "size", "break", "step", "turn", "drop", "lock", "fill", "trap", "block", "cause",
	"improve", "cut", "fold", "adjust", "attach", "light", "cook", "boil", "burn", "handle", "pick",
	"stake", "stuff", "compress", "loosen", "tighten", "lace", "zip", "roll", "pull", "push",
	"press", "shape", "lift", "warm", "cool", "range", "list", "guide", "train", "fall", "suit",
	"split", "walk", "draw", "chill", "crush", "struggle", "pass", "conduct", "risk", "span", "trade",
	"limit", "sort", "run", "rinse", "favor", "lick", "waste", "screw", "stand", "spread",
	"flex", "snap", "crack", "bend", "lean", "travel", "haul", "aim", "rent", "upgrade", "count",
	"release", "prime", "puncture", "shield", "wrap", "share", "post", "sound", "watch", "swap",
	"shake", "open", "orient", "bury", "clip", "camp", "book", "visit", "hire", "form", "slow",
}

// howToAmbiguous are verbs of how-to and product prose (see howToVerbs)
// that are also nouns, most of them often a modifier of another noun:
// "water bottle", "paint brush", "drill bits", "plant pots", "ride
// quality", "brew ratio", "budget airlines", "packing list". Like
// ambiguousBases, context decides: a noun after a determiner or before
// another noun, a verb after a plural or a subject pronoun ("commuters
// ride", "we water"), after a modal or an infinitive "to" ("how to
// prune"), before a determiner or pronoun ("water the beds"), and, for
// the few in clauseVerbs, opening a clause ("Prune fruit trees in
// winter").
var howToAmbiguous = []string{
	// cooking
	"bake", "brew", "whisk", "stir", "chop", "slice", "roast", "grill", "fry", "blend", "steam",
	"toast", "grate", "peel", "mash", "sear", "poach", "drain", "serve", "taste", "melt", "season",
	"mix",
	// gardening
	"plant", "prune", "sow", "water", "weed", "mulch", "harvest", "transplant", "dig", "trim", "feed",
	// cycling
	"ride", "pedal", "shift", "brake", "climb", "cycle", "commute", "coast", "lube", "tune",
	// fitness
	"stretch", "squat", "jog", "sprint", "swim", "exercise", "strengthen",
	// pets
	"groom", "bathe", "brush", "reward",
	// money
	"budget", "deposit", "claim",
	// DIY
	"install", "sand", "drill", "paint", "nail", "glue", "caulk", "patch", "plaster", "hammer",
	"mount", "fix",
	// travel
	"pack", "fly", "tour", "cruise",
	// software
	"download", "upload", "update", "sync", "stream", "debug", "restart", "reboot", "click",
	"scroll", "edit", "copy", "paste",
}

// verbLeaning are the ambiguous verbs whose "-s" form after a noun is
// more often a verb than a plural head ("type fits", "water boils",
// "pressure drops"); the others' "-s" forms there are read as plural
// nouns ("tent stakes", "base layers", "boot laces", "arch supports").
var verbLeaning = set(
	"fit", "need", "use", "work", "help", "hold", "last", "matter", "start", "stop", "drop", "boil",
	"burn", "cover", "suit", "split", "draw", "fall", "walk", "treat", "cool", "warm", "dry",
	"clean", "care", "struggle", "chill", "crush", "conduct", "pass", "lean", "flex", "travel",
	"haul", "aim", "favor", "lick", "waste", "wear", "look", "fill", "turn", "cost", "weigh", "run",
	"break", "increase", "decrease", "change", "improve", "cause", "shape", "offer",
	// how-to prose: "the recipe serves four", "the sauce tastes sweet"
	"serve", "taste", "melt",
	// a cycling trial: "regular chain cleaning slows wear"
	"slow",
)

// clauseVerbs are the ambiguous verbs that are verbs when they open a
// clause (first in a run, after "and"/"or", or after an adverb there):
// "Check the seams", "never store a tent damp", "and use deadman
// anchors". The ambiguous words that often open a noun phrase ("Dry
// bags", "Clean boots", "Support matters", "Fill power") are not among
// them.
var clauseVerbs = set(
	"check", "pick", "store", "use", "wash", "match", "cover", "plan", "turn", "drop", "lock", "fold",
	"adjust", "attach", "cook", "boil", "pitch", "measure", "treat", "repair", "start", "stop", "pull",
	"push", "press", "roll", "loosen", "tighten", "wrap", "shield", "compress", "lace", "zip",
	"release", "prime", "rent", "watch", "need", "limit", "sort", "run", "rinse", "swap",
	"shake", "open", "orient", "bury", "clip", "wear", "hold", "hire", "visit",
	// how-to imperatives whose nouns rarely open a noun phrase ("Prune
	// fruit trees", "Sear the steak", "Install the app"); not "plant",
	// "water", "paint", "ride" ("Plant pots", "Water bottles")
	"prune", "sow", "bake", "whisk", "stir", "chop", "drain", "sear", "poach", "serve", "dig",
	"strengthen", "groom", "bathe", "install", "fix", "restart", "reboot", "stretch",
)

var (
	verbs     = map[string]bool{}
	ambiguous = map[string]bool{}
	thirdAmb  = map[string]bool{} // third-person forms of the ambiguous verbs
	thirdVerb = map[string]bool{} // third-person forms of verbLeaning
)

func init() {
	for _, b := range append(verbBases, howToVerbs...) {
		verbs[b], verbs[thirdPerson(b)] = true, true
	}
	for w := range verbForms {
		verbs[w] = true
	}
	for _, b := range append(ambiguousBases, howToAmbiguous...) {
		if verbs[b] {
			continue
		}
		ambiguous[b] = true
		ambiguous[thirdPerson(b)] = true
		thirdAmb[thirdPerson(b)] = true
		if verbLeaning[b] {
			thirdVerb[thirdPerson(b)] = true
		}
	}
}

// thirdPerson is a verb's "-s" form: gives, matches, carries.
func thirdPerson(b string) string {
	switch {
	case strings.HasSuffix(b, "y") && len(b) > 2 && !strings.ContainsRune("aeiou", rune(b[len(b)-2])):
		return b[:len(b)-1] + "ies"
	case strings.HasSuffix(b, "s"), strings.HasSuffix(b, "x"), strings.HasSuffix(b, "z"),
		strings.HasSuffix(b, "ch"), strings.HasSuffix(b, "sh"), b == "go", b == "do":
		return b + "es"
	case b == "have":
		return "has"
	case b == "be":
		return "is"
	}
	return b + "s"
}

// lyWords end in "-ly" but are nouns or adjectives, not adverbs.
var lyWords = set(
	"family", "supply", "assembly", "belly", "jelly", "rally", "reply", "butterfly", "dragonfly",
	"firefly", "gully", "tally", "bully", "holly", "folly", "jolly", "daily", "early", "friendly",
	"lovely", "costly", "likely", "unlikely", "elderly", "silly", "hilly", "woolly", "chilly",
	"curly", "burly", "surly", "lowly", "deadly", "orderly", "weekly", "monthly", "yearly", "hourly",
	"nightly", "quarterly", "italy", "july", "anomaly", "monopoly", "lonely", "lively", "wobbly",
	"bubbly", "prickly", "sparkly", "grisly", "stately", "timely", "unruly", "worldly", "homely",
	"comely", "gnarly", "frilly", "smelly", "shapely", "rely", "imply", "multiply", "comply", "apply",
)

// lyNounEnds are nouns in "-ly" that end compounds as well
// ("webassembly", "subfamily", "oversupply"). Adverbs and adjectives in
// "-ly" would not do: "simply" ends on "imply", "nearly" on "early".
var lyNounEnds = []string{"assembly", "family", "supply", "anomaly", "monopoly", "butterfly"}

// Sentence adverbials (markSentenceAdverbials): the nouns that make one
// after "in" and a possessive ("in our experience"), or after "in" alone
// ("in practice").
var (
	possessiveDeterminers    = set("my", "your", "his", "her", "its", "our", "their")
	adverbialAfterPossessive = set("experience", "opinion", "view", "estimation", "judgment", "judgement")
	adverbialAfterIn         = set("practice", "theory", "fact", "short", "general", "particular", "addition",
		"contrast", "turn", "total", "summary", "principle", "reality", "hindsight", "sum")
)

// edWords end in "-ed" but are not participles.
var edWords = set(
	"hundred", "kindred", "speed", "breed", "steed", "creed", "greed", "tweed", "seabed", "riverbed",
	"streambed", "flowerbed", "flatbed", "hotbed", "waterbed", "airspeed", "linseed", "seaweed",
	"indeed", "proceed", "exceed", "succeed",
)

// ingWords end in "-ing" but are not verb forms.
var ingWords = set(
	"thing", "string", "spring", "sling", "swing", "sting", "fling", "cling", "wring", "king", "ring",
	"wing", "ceiling", "evening", "morning", "pudding", "awning", "herring", "sibling", "earring",
	"offspring", "lightning", "viking", "during",
)

// notPlural end in "s" without being plural nouns, or are nouns in "-s"
// that modify the noun after them as a singular does ("savings account",
// "sales tax", "sports bra"): a finance trial's home page linked "a
// [retirement savings] calculator" to the hub, the product's name cut.
var notPlural = set(
	"canvas", "gas", "atlas", "lens", "news", "series", "species", "chassis", "bus", "plus", "yes",
	"this", "its", "his", "has", "was", "is", "does", "always", "sometimes", "perhaps", "whereas",
	"towards", "besides", "afterwards", "nowadays", "overseas", "alps", "physics", "thermos",
	"bias", "iris", "christmas", "texas", "mattress", "lots",
	"savings", "sales", "sports", "goods", "earnings", "mathematics", "economics", "politics", "athletics",
	"gymnastics", "electronics", "logistics", "analytics", "aerobics", "diabetes",
)

// irregularPlurals are plural nouns without an "s".
var irregularPlurals = set("feet", "teeth", "people", "children", "men", "women", "mice", "geese", "oxen", "lice",
	"bacteria", "fungi", "cacti", "criteria", "phenomena", "larvae", "algae", "alumni", "nuclei", "stimuli", "vertebrae")

// foreign are common function words of German, French, Spanish, Italian,
// Portuguese and Dutch. A paragraph whose words hold at least as many of
// them (that are not also English words: "in", "do", "no" count as
// English) as English closed-class words is not English, and no natural
// phrase is looked for in it.
var foreign = set(
	// German
	"der", "die", "das", "und", "ist", "sind", "nicht", "mit", "für", "ein", "eine", "einen", "dem",
	"den", "des", "zu", "von", "auf", "auch", "sich", "wie", "oder", "aber", "bei", "nach", "aus",
	"wenn", "sie", "wir", "ich", "du", "er", "es", "werden", "wird", "sehr", "noch", "nur", "kann",
	"können", "diese", "dieser", "zum", "zur", "vom", "im", "beim", "durch", "über", "unter", "ohne",
	"gegen", "damit", "man", "sein", "haben", "hat", "dass", "lange", "immer",
	// French
	"le", "la", "les", "et", "est", "sont", "une", "un", "du", "pour", "dans", "avec", "sur", "pas",
	"ne", "qui", "que", "au", "aux", "ce", "cette", "ces", "il", "elle", "nous", "vous", "ils",
	"mais", "ou", "plus", "par", "leur", "leurs", "sans", "très", "été", "être",
	// Spanish
	"el", "los", "las", "y", "son", "una", "uno", "por", "para", "con", "del", "al", "en", "se",
	"su", "sus", "lo", "muy", "pero", "como", "más", "sin", "sobre", "entre", "este", "esta",
	"estos",
	// Italian
	"gli", "della", "delle", "dei", "di", "che", "non", "sono", "è", "e", "ma", "anche", "più",
	"nel", "nella", "alla",
	// Portuguese
	"o", "os", "um", "uma", "do", "da", "dos", "das", "em", "no", "na", "não", "com", "mais",
	// Dutch
	"de", "het", "een", "en", "van", "niet", "met", "voor", "op", "zijn", "ook", "naar", "bij",
	"om", "te", "ze", "wordt", "maar", "nog",
)

// clauseOpeners start a clause of their own inside a title
// (MainClause); complementOpeners a phrase that says for whom or with
// what, once the title has named its subject.
var (
	clauseOpeners = set("before", "after", "when", "while", "because", "if", "so", "until", "unless", "since",
		"once", "without")
	complementOpeners = set("for", "with", "in", "into", "on", "at", "around")
)

// genericStarts are evaluative words a natural phrase does not start on:
// "the best lightweight hiking boots" gives "lightweight hiking boots",
// "Good dog training turns…" gives "dog training" (a pet-care trial
// linked "Good dog training" to its hub).
var genericStarts = set("best", "top", "right", "wrong", "ultimate", "complete", "perfect", "worst", "favorite", "favourite",
	"good", "great", "excellent", "ideal",
	// a fitness trial's cross-cluster link "Combine it with a [sensible
	// cutting diet]"
	"sensible", "proper", "decent", "reasonable", "wise",
	// a parenting trial's "why the [infamous 4-month sleep regression]":
	// words that say what people think of a thing, not which thing it is
	"infamous", "notorious", "dreaded", "famous", "legendary", "so-called", "beloved", "much-loved")

// quantityAfterA reports "little" or "bit" after "a": "a little interval
// training" is some interval training, not a phrase about small ones.
func quantityAfterA(toks []token, i int, low string) bool {
	return (low == "little" || low == "bit") && i > 0 && toks[i-1].low == "a"
}

// superlative reports an "-est" adjective ("cheapest", "easiest",
// "biggest"): like the evaluative words, it grades the phrase it opens
// ("the cheapest water heater installation" is about "water heater
// installation"). Nouns ending so are not ("forest", "interest").
func superlative(w string) bool {
	return len(w) >= 6 && strings.HasSuffix(w, "est") && !estNouns[w]
}

// estNouns are common words ending in "est" that are no superlative.
var estNouns = set("forest", "forests", "interest", "harvest", "contest", "protest", "request", "conquest",
	"bequest", "inquest", "tempest", "behest", "manifest", "digest", "arrest", "unrest", "honest", "modest",
	"earnest", "suggest", "invest", "ingest", "detest", "attest", "infest", "midwest", "northwest",
	"southwest", "rainforest", "everest", "bucharest", "budapest")

// degreeAdverbs grade the adjective after them ("a very light tent"):
// a natural phrase does not start on that adjective. Adverbs that focus a
// whole noun phrase ("only", "also", "especially") are not among them.
var degreeAdverbs = set("very", "too", "so", "quite", "rather", "fairly", "really", "extremely", "incredibly",
	"highly", "hugely", "truly", "surprisingly", "remarkably", "exceptionally", "unusually", "relatively",
	"reasonably", "slightly", "somewhat")

// comparatives grade the adjective after them when an article comes
// first: "the most powerful", "a less expensive".
var comparatives = set("most", "least", "more", "less")

// articles are the words that make "most" or "more" after them grade an
// adjective.
var articles = set("the", "a", "an")

// comparisonWords join the two sides of a comparison into one noun phrase
// ("couchette vs sleeper comparison"): a phrase never ends or starts at
// one, which would link half of what the text compares.
var comparisonWords = set("vs", "versus", "v")

// matchStopWords are open-class words too generic to tell targets apart
// ("The Best Boots Guide", "Fill Power Explained", "the Right Pair").
var matchStopWords = set("best", "guide", "complete", "ultimate", "explained", "right")

// lexClass is a word's class before context: w is lower case with
// apostrophes folded to "'".
func lexClass(w string) class {
	switch {
	case w == "" || !hasWordRune(w) || !latin(w):
		return cBarrier
	case utf8.RuneCountInString(w) == 1 && w != "a" && w != "i" && !allDigits(w):
		return cBarrier // a stray letter: "F" of "31°F", "m" of "a.m."
	case determiners[w] || allDigits(w):
		return cDet
	case relatives[w]:
		return cRel
	case pronouns[w]:
		return cPron
	case auxiliaries[w]:
		return cAux
	case conjunctions[w]:
		return cConj
	case prepositions[w]:
		return cPrep
	case adverbs[w]:
		return cAdv
	case verbs[w]:
		return cVerb
	case ambiguous[w]:
		return cAmbig
	case participles[w]:
		return cPart
	}
	if strings.ContainsRune(w, '-') || strings.ContainsRune(w, '\'') {
		return cOpen // compounds ("three-season", "user-friendly") and possessives
	}
	n := utf8.RuneCountInString(w)
	switch {
	case n >= 5 && strings.HasSuffix(w, "ly") && !lyWords[w] && !hasAnySuffix(w, lyNounEnds...):
		return cAdv
	case n >= 6 && (hasAnySuffix(w, "ize", "izes", "ify", "ifies")):
		return cVerb // vaporize, pressurizes, simplify
	case n >= 7 && (hasAnySuffix(w, "ized", "ified")):
		return cPart // pressurized, purified
	case n >= 8 && (hasAnySuffix(w, "izing", "ifying")):
		return cGer
	case n >= 5 && strings.HasSuffix(w, "ed") && !edWords[w]:
		return cPart
	case n >= 5 && strings.HasSuffix(w, "ing") && !ingWords[w]:
		return cGer
	}
	return cOpen
}

// closedClass reports whether a word belongs to the lexicon's closed
// classes or common verbs: a natural phrase never starts or ends on one.
func closedClass(w string) bool { return closed(lexClass(fold(w))) }

// FunctionWord reports whether w is a word of the lexicon's closed
// classes or a common verb ("a", "for", "how", "your", "get"), or a
// function word of the site's language (functionWordsOf; "" is English):
// words that tell no topic from another.
func FunctionWord(w, language string) bool {
	return closedClass(w) || functionWordsOf[language][strings.ToLower(w)]
}

// FramesPhrase reports whether a phrase a model proposed as an anchor
// opens or closes as no natural phrase of the text does: on a function
// word ("of your database backups", "from schema migrations"), or
// opening on a word that grades it ("the cheapest database monitoring",
// "best trail shoes"). A docs trial's model phrases were placed so.
func FramesPhrase(phrase, language string) bool {
	words := strings.Fields(strings.Trim(phrase, ".,;:!?\"'()"))
	if len(words) == 0 {
		return true
	}
	first, last := strings.ToLower(words[0]), strings.ToLower(words[len(words)-1])
	return FunctionWord(first, language) || FunctionWord(last, language) || genericStarts[first] ||
		English(language) && superlative(first)
}

// functionWordsOf are, by language (policy.Languages but English, whose
// are the lexicon's closed classes), its articles, prepositions,
// conjunctions, pronouns and commonest auxiliaries: a German trial's
// Related Reading paired articles that shared "die", "im" and "für".
var functionWordsOf = map[string]map[string]bool{
	"german": set("der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "und",
		"oder", "aber", "ist", "sind", "war", "nicht", "kein", "keine", "mit", "für", "zu", "zum", "zur", "von", "vom",
		"auf", "an", "am", "in", "im", "bei", "beim", "nach", "aus", "über", "unter", "ohne", "gegen", "durch", "um",
		"bis", "vor", "als", "wie", "wann", "was", "warum", "welche", "wenn", "dass", "so", "auch", "noch", "nur",
		"sehr", "sich", "sie", "wir", "ich", "du", "er", "es", "man", "ihr", "ihre", "ihren", "sein", "seine",
		"haben", "hat", "werden", "wird", "kann", "können", "muss", "sollte", "sollten", "diese", "dieser", "dieses",
		// A preposition joined to its article: a German trial's Related
		// Reading took the "fürs" of "Fahrradtasche fürs Büro" and "Schloss
		// fürs Fahrrad" for a topic the two pages shared.
		"fürs", "ins", "ans", "aufs", "ums", "übers", "unters", "vors", "hinters", "durchs", "zwischen", "mein",
		"meine", "dein", "deine", "unser", "unsere", "euer", "eure"),
	"french": set("le", "la", "les", "l", "un", "une", "des", "du", "de", "d", "au", "aux", "et", "ou", "mais", "est",
		"sont", "pas", "ne", "qui", "que", "qu", "quoi", "comment", "pourquoi", "quand", "pour", "dans", "avec",
		"sur", "sous", "par", "sans", "en", "à", "ce", "cette", "ces", "son", "sa", "ses", "votre", "vos", "notre",
		"nos", "leur", "leurs", "il", "elle", "nous", "vous", "ils", "elles", "se", "si", "plus", "très", "être", "été"),
	"spanish": set("el", "la", "los", "las", "lo", "un", "una", "unos", "unas", "de", "del", "al", "a", "y", "e", "o",
		"u", "ni", "pero", "que", "qué", "cómo", "cuándo", "por", "para", "con", "sin", "sobre", "entre", "en", "es",
		"son", "no", "se", "su", "sus", "tu", "tus", "le", "les", "muy", "más", "como", "este", "esta", "estos",
		"estas"),
	"italian": set("il", "lo", "la", "i", "gli", "le", "l", "un", "uno", "una", "di", "del", "dello", "della", "dei",
		"degli", "delle", "a", "al", "allo", "alla", "ai", "agli", "alle", "da", "in", "nel", "nella", "nei", "con",
		"su", "per", "tra", "fra", "e", "ed", "o", "ma", "che", "non", "è", "sono", "si", "come", "quando", "perché",
		"anche", "più", "suo", "sua", "tuo", "tua", "cosa", "dove", "quale", "quali", "chi", "cui", "questo", "questa",
		"questi", "queste", "quello", "quella", "due", "tre", "quattro", "cinque", "dieci"),
	"portuguese": set("o", "a", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "em", "no",
		"na", "nos", "nas", "ao", "aos", "para", "por", "pelo", "pela", "com", "sem", "e", "ou", "mas", "que",
		"não", "é", "são", "se", "seu", "sua", "como", "quando", "mais"),
	"dutch": set("de", "het", "een", "en", "of", "maar", "van", "in", "op", "aan", "met", "voor", "naar", "bij", "om",
		"te", "uit", "door", "over", "tot", "is", "zijn", "wordt", "niet", "ook", "nog", "dat", "die", "wat", "hoe",
		"wanneer", "je", "jouw", "uw", "ze", "als", "dan", "er"),
	"danish": set("og", "eller", "men", "i", "på", "til", "med", "for", "af", "om", "fra", "en", "et", "den", "det",
		"de", "er", "som", "at", "ikke", "har", "kan", "din", "dit", "dine", "sin", "sit", "hvordan", "hvorfor"),
	"norwegian": set("og", "eller", "men", "i", "på", "til", "med", "for", "av", "om", "fra", "en", "ei", "et", "den",
		"det", "de", "er", "som", "at", "ikke", "har", "kan", "din", "ditt", "dine", "hvordan", "hvorfor"),
	"swedish": set("och", "eller", "men", "i", "på", "till", "med", "för", "av", "om", "från", "en", "ett", "den",
		"det", "de", "är", "som", "att", "inte", "har", "kan", "din", "ditt", "dina", "hur", "varför"),
	"finnish": set("ja", "tai", "mutta", "on", "ovat", "ei", "se", "ne", "että", "kun", "jos", "myös", "kuin",
		"sekä", "miten", "miksi"),
	"hungarian": set("a", "az", "egy", "és", "vagy", "de", "hogy", "nem", "is", "meg", "van", "vannak", "mint",
		"hogyan", "miért"),
	"russian": set("и", "в", "во", "не", "на", "с", "со", "что", "как", "по", "для", "или", "к", "из", "о", "от",
		"до", "за", "но", "это", "при"),
}

// closed reports whether a class is one of the closed classes or the
// common verbs.
func closed(c class) bool {
	switch c {
	case cDet, cPrep, cConj, cPron, cRel, cAux, cAdv, cVerb:
		return true
	}
	return false
}

// gerundOfVerb reports whether an "-ing" word is a form of a listed common
// verb: "buying", "choosing", "getting".
func gerundOfVerb(w string) bool {
	b, ok := strings.CutSuffix(w, "ing")
	if !ok {
		return false
	}
	if verbs[b] || verbs[b+"e"] {
		return true
	}
	n := len(b)
	return n >= 2 && b[n-1] == b[n-2] && verbs[b[:n-1]] || gerundVerbs[w]
}

// gerundVerbs are "-ing" forms of ambiguous verbs that are verbs, not
// modifiers ("using trekking poles", "needing a bigger pack").
var gerundVerbs = set("using", "needing", "making", "helping", "wearing")

// gerundTakers are the forms of the verbs of beginning and ending, whose
// "-ing" object is an activity ("stop wearing", "began brushing"), never
// a modifier of a noun after it.
var gerundTakers = set("start", "starts", "started", "stop", "stops", "stopped", "begin", "begins", "began",
	"begun", "quit", "quits", "finish", "finishes", "finished")

// plural reports whether a word looks like a plural noun: it ends in "s"
// (not "ss", "us", "is") or is an irregular plural.
func plural(w string) bool {
	if irregularPlurals[w] {
		return true
	}
	if len(w) <= 3 || notPlural[w] || !strings.HasSuffix(w, "s") {
		return false
	}
	return !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") &&
		!strings.HasSuffix(w, "'s")
}

// fold is the form words are looked up in: lower case, typographic
// apostrophes as "'", without leading or trailing punctuation.
func fold(w string) string {
	w = strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	return strings.TrimFunc(w, notWordRune)
}

func hasAnySuffix(w string, suffixes ...string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func hasWordRune(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !notWordRune(r) }) >= 0
}

func allDigits(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// latin reports whether every letter of a word is of the Latin script.
func latin(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}
