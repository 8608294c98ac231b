--TEST--
tryLock(): a Lock when free, null when another owner holds it; one attempt, no waiting
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$a = new DistLock(test_uri(), ['prefix' => 'phpt_013:', 'wait' => 5]);
$b = new DistLock(test_uri(), ['prefix' => 'phpt_013:', 'wait' => 5]);
$la = $a->tryLock('n', 3);
var_dump($la instanceof DistLock\Lock, $la->name());
$pttl = raw_redis('PTTL', 'phpt_013:n');
var_dump($pttl > 2500 && $pttl <= 3000);
$c0 = $b->stats()['contended'];
$t = microtime(true);
var_dump($b->tryLock('n'));          // held by $a: null, and no waiting although wait=5
var_dump($b->tryLock('n', 10));
echo "returned at once: ", var_export(microtime(true) - $t < 0.5, true), "\n";
echo "contended counted: ", var_export($b->stats()['contended'] - $c0 >= 2, true), "\n";
var_dump(raw_redis('GET', 'phpt_013:n') === $la->token());   // untouched
// a key set by anyone else (not a distlock token) also counts as held
raw_redis('SET', 'phpt_013:foreign', 'somebody', 'PX', 5000);
var_dump($a->tryLock('foreign'));
var_dump(raw_redis('GET', 'phpt_013:foreign'));
// after release the other owner gets it
var_dump($la->release());
$lb = $b->tryLock('n');
var_dump($lb instanceof DistLock\Lock, $lb->token() !== $la->token(), raw_redis('GET', 'phpt_013:n') === $lb->token());
var_dump($lb->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_013:');
?>
--EXPECT--
bool(true)
string(1) "n"
bool(true)
NULL
NULL
returned at once: true
contended counted: true
bool(true)
NULL
string(8) "somebody"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
