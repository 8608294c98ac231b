--TEST--
new DistLock(): defaults (server, prefix "lock:", ttl 30, wait 10) and no connection at construction
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';

// No arguments: default server redis://127.0.0.1:6379; nothing connects yet.
$d = new DistLock();
var_dump($d);

// Defaults in effect against the test server: prefix "lock:", ttl 30 s.
$d = new DistLock(test_uri());
$l = $d->lock('phpt_003:a');
var_dump($l->name());
var_dump(raw_redis('GET', 'lock:phpt_003:a') === $l->token());
$pttl = raw_redis('PTTL', 'lock:phpt_003:a');
var_dump($pttl > 29000 && $pttl <= 30000);
// the Lock's own default ttl is the same 30 s: refresh() without argument resets to it
raw_redis('PEXPIRE', 'lock:phpt_003:a', 5000);
var_dump($l->refresh());
$pttl = raw_redis('PTTL', 'lock:phpt_003:a');
var_dump($pttl > 29000 && $pttl <= 30000);
var_dump($l->release(), raw_redis('EXISTS', 'lock:phpt_003:a'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('lock:phpt_003:');
?>
--EXPECTF--
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://127.0.0.1:6379%S"
  ["prefix"]=>
  string(5) "lock:"
  ["ttl"]=>
  float(30)
  ["wait"]=>
  float(10)%A
}
string(10) "phpt_003:a"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
