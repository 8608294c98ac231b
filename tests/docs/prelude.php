<?php
// tests/docs/prelude.php — what the docs name without defining it, and
// nothing else: the server (the docs' own address, redis://127.0.0.1:6379,
// which in the docs suite's private network namespace is the suite's
// throw-away redis-server) and the two instances the text speaks of.
$locks = new DistLock('redis://127.0.0.1:6379');   // "your" instance
$other = new DistLock('redis://127.0.0.1:6379');   // another owner: another process, in the text's words
