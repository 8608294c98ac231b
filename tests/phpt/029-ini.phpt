--TEST--
INI: distlock.* settings are the defaults of new instances; options beat them; bad values are refused
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
distlock.prefix=phpt_029:
distlock.ttl=2.5
distlock.wait=0.25
distlock.retry_delay=0.01
distlock.retry_jitter=0.002
distlock.connect_timeout=0.5
distlock.timeout=0.3
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
foreach (['prefix', 'ttl', 'wait', 'retry_delay', 'retry_jitter', 'connect_timeout', 'timeout'] as $k) {
    echo "distlock.$k = ", ini_get("distlock.$k"), "\n";
}
$d = new DistLock(test_uri());
var_dump($d);
$l = $d->lock('a');
var_dump(raw_redis('GET', 'phpt_029:a') === $l->token());
$p = raw_redis('PTTL', 'phpt_029:a');
echo "ttl 2.5: ", var_export($p > 2200 && $p <= 2500, true), "\n";

$o = new DistLock(test_uri());
$t = microtime(true);
try { $o->lock('a'); echo "acquired?!\n"; } catch (DistLock\LockTimeoutException $e) {
    $el = microtime(true) - $t;
    echo "wait 0.25: ", var_export($el >= 0.24 && $el < 1.5, true), "\n";
}
$l->release();

// options beat INI
$x = new DistLock(test_uri(), ['prefix' => 'phpt_029:opt:', 'ttl' => 4]);
$l = $x->lock('b');
$p = raw_redis('PTTL', 'phpt_029:opt:b');
echo "options win: ", var_export($p > 3700 && $p <= 4000, true), "\n";
$l->release();

// timeout from INI: a server that never answers
$srv = stream_socket_server('tcp://127.0.0.1:0');
$name = stream_socket_get_name($srv, false);
$silent = new DistLock('redis://' . $name);
$t = microtime(true);
try { $silent->isLocked('x'); } catch (DistLock\ConnectionException $e) {
    $el = microtime(true) - $t;
    echo "timeout 0.3: ", var_export($el >= 0.25 && $el < 1.5, true), "\n";
}

// ini_set at runtime: affects instances created afterwards, not existing ones
var_dump(ini_set('distlock.ttl', '7') !== false);
$y = new DistLock(test_uri());
$l = $y->lock('c');
$p = raw_redis('PTTL', 'phpt_029:c');
echo "runtime ttl 7: ", var_export($p > 6700 && $p <= 7000, true), "\n";
$l->release();
$l = $d->lock('d');
$p = raw_redis('PTTL', 'phpt_029:d');
echo "existing instance keeps 2.5: ", var_export($p > 2200 && $p <= 2500, true), "\n";
$l->release();

?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_029:');
?>
--EXPECTF--
distlock.prefix = phpt_029:
distlock.ttl = 2.5
distlock.wait = 0.25
distlock.retry_delay = 0.01
distlock.retry_jitter = 0.002
distlock.connect_timeout = 0.5
distlock.timeout = 0.3
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://127.0.0.1:%d%S"
  ["prefix"]=>
  string(9) "phpt_029:"
  ["ttl"]=>
  float(2.5)
  ["wait"]=>
  float(0.25)%A
}
bool(true)
ttl 2.5: true
wait 0.25: true
options win: true
timeout 0.3: true
bool(true)
runtime ttl 7: true
existing instance keeps 2.5: true
