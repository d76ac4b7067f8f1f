"""The table protocol (``protocol/table.md``, ``protocol/log.md``): the signed
log, the table machine over it, what each seat may know, the dealing checks,
the one walk of a log through the machine, one seat's driver, and the
narration of moves. Players, spectators and the audit all run this same
code; nothing here touches the network or a screen."""
