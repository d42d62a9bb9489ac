"""Text processing shared by the studies: parser backends (:mod:`cdaflow.text.parsing`), tokens, case and
statistics. Import the module you need: this package imports none of them, so that reading a CoNLL-U file never
loads a parser.
"""
