"""The rules core: cards, events, the judge, the games, the journal format and what is said; standard library only."""
