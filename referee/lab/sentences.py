"""What the benchmark corpus's voices say, split by split: card calls aside (the deck says
those), the shouts, commands, chatter, near-misses, talk addressed to the referee, partial
calls, table talk with bare card words, talk in a command's words not said to the referee,
the babble, and the near-miss development set.
Training reads it too, to keep the held-out sentences out of its data.
"""

#: The near-miss development set: sentences with card or shout words that are no call (none
#: of them the benchmark's), each said by tuning and development voices of every family.
PROBE_NEAR_MISSES = (
    "king in the castle", "queen in the garden", "two in the morning", "nine in the evening",
    "five in a row", "ace in the hole", "seven dwarfs", "three musketeers", "ten pounds please",
    "four seasons", "six pack of beer", "eight legs on a spider", "diamond ring",
    "club sandwich", "heart attack", "the queen is dead", "the king is here", "two of them",
    "four of my friends", "six of one", "I have two hearts", "you have five diamonds",
    "only three clubs left", "a jack of all trades", "queen of the night", "king of kings",
    "ace of cakes", "jack and jill", "the jack was wild", "nine lives", "ten to one",
    "the ace of it", "hearts and minds", "seven of us", "queen bee", "king size bed",
    "three of a kind", "a pair of kings", "that is a good hoop", "go up the stairs",
    "scoop it up", "the soup is cold")

GOOP_TEXTS = ("goop", "goop!")

#: (what is said, the canonical command the grammar should return): a command is said to the
#: referee (issue 25).
COMMANDS = {
    "tuning": (("referee score", "score"), ("referee say that again", "repeat"),
               ("referee undo", "undo"), ("referee new game", "new game")),
    "held-out": (("referee what's the score", "score"), ("referee repeat", "repeat"),
                 ("referee end game", "end"), ("referee pause", "pause")),
}

#: Talk in a command's everyday words that is not said to the referee: it must set off no
#: command (each voice says all four of its split's). No held-out one was ever said in
#: training (docs/hearing.md).
UNADDRESSED = {
    "tuning": ("say that again", "pause the game", "resume the game", "what's the score then"),
    "held-out": ("what's the score", "can we pause", "could you say that again",
                 "let's resume the game"),
}

#: Talk with no card words in it.
CHATTER = {
    "tuning": (
        "pass me the water please", "did you see the match last night",
        "hold on a second", "I think it might rain later",
        "where did you park the car", "that was a long week",
        "can I have some of those crisps", "my sister is coming over tomorrow",
    ),
    "held-out": (
        "who wants another drink", "let me sit over there",
        "I forgot my glasses at home", "it is getting late already",
        "the kettle has just boiled", "we should do this more often",
        "turn the music down a bit", "have you finished your homework",
    ),
}

#: Card and shout words in sentences that are not calls.
NEAR_MISSES = {
    "tuning": (
        "I have four hearts", "queen of the castle", "hearts are red",
        "king of the hill", "diamonds are forever", "the two of us",
        "a good group", "seven days a week",
    ),
    "held-out": (
        "jack in the box", "spades are for digging", "she is the queen",
        "ten out of ten", "my heart is yours", "three clubs in town",
        "the goose is loose", "an ace up my sleeve",
    ),
}

#: Talk addressed to the referee that is no command (and no card words).
ADDRESSED = {
    "tuning": (
        "referee who won that one", "referee he cheated", "referee it is my go",
        "referee that was a foul", "referee are you listening", "referee what happened there",
        "referee look at this", "referee hold on a minute",
    ),
    "held-out": (
        "referee is that allowed", "referee she peeked at the deck",
        "referee how many points do I have", "referee was that fair",
        "referee tell him to stop", "referee I think you missed one",
        "referee what are the rules", "referee can you speak up",
    ),
}

#: Partial calls, (what is said, the canonical partial call): a bare rank or suit, or a
#: call cut short. A miscall in Stroop.
PARTIALS = {
    "tuning": (("queen", "queen"), ("five", "five"), ("hearts", "hearts"),
               ("jack of", "jack of"), ("ten", "ten"), ("spades", "spades"),
               ("king", "king"), ("seven of", "seven of")),
    "held-out": (("nine", "nine"), ("clubs", "clubs"), ("queen of", "queen of"),
                 ("six", "six"), ("diamonds", "diamonds"), ("jack", "jack"),
                 ("eight", "eight"), ("three of", "three of")),
}

#: Table talk with a bare rank or suit in it, that must not become a partial call.
PARTIAL_CHATTER = {
    "tuning": (
        "I have four kids", "five minutes", "hearts are trumps", "queen of the castle",
        "give me five", "the king is tired", "seven o'clock", "two more",
        "spades for the garden", "ace it",
    ),
    "held-out": (
        "three more minutes", "diamonds are trumps", "I saw the queen", "nine o'clock",
        "four of us went", "the jack is loose", "clubs are open late", "six is enough",
        "give it ten", "eight of them came",
    ),
}

#: What the babble talkers say (no card, shout or command words).
BABBLE = {
    "tuning": (
        "so anyway we drove all the way to the coast", "no I never said that",
        "the train was late again this morning", "she bought a new bike last month",
        "what are you doing at the weekend", "I really like this song",
    ),
    "held-out": (
        "then he told me the whole story again", "maybe we could go out for dinner",
        "the garden looks lovely this time of year", "I am not sure that is right",
        "they moved to a bigger flat in town", "could you open the window",
    ),
}

#: Table talk with number words that is no answer to the Goop count (``referee bench
#: --numbers``; held-out voices say other sentences).
NUMBER_TALK = {
    "tuning": ("I had three of those", "give me two minutes", "one more round please",
               "we need ten more points", "it is five past nine", "twenty questions"),
    "held-out": ("seven is my lucky number", "back in five", "three cheers for that",
                 "about a dozen of them", "the first one to fifty", "it took forty seconds"),
}

#: Table talk near Swoop's plays that is no play, per split (``referee bench-swoop``).
SWOOP_NEAR_MISSES = {
    "tuning": ("I'll pick up the kids", "seven o'clock", "pick up the phone",
               "I'm out of milk", "two of them", "blind as a bat", "ten more minutes",
               "the queen of england"),
    "held-out": ("can you pick up some bread", "it's nine o'clock already", "I'm out of time",
                 "two kings of france", "a blind date", "eight of us came",
                 "four jacks and a queen walked in", "we ran out of ice"),
}
