--TEST--
lock()/tryLock(): bad ttl and wait are ValueError naming the argument; wrong types TypeError; nothing is written
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_023:']);
function t(string $label, callable $f) {
    try {
        $r = $f();
        echo "$label: accepted (", get_debug_type($r), ")\n";
    } catch (Throwable $e) {
        preg_match('/Argument #\d \(\$\w+\)/', $e->getMessage(), $m);
        echo "$label: ", get_class($e), " ", $m[0] ?? $e->getMessage(), "\n";
    }
}
foreach ([0.0, -1.0, INF, -INF, NAN, 1e9 + 1] as $bad) {
    $v = var_export($bad, true);
    t("lock ttl $v", fn() => $d->lock('a', $bad));
    t("tryLock ttl $v", fn() => $d->tryLock('a', $bad));
}
foreach ([-0.001, INF, NAN, 1e9 + 1] as $bad) {
    $v = var_export($bad, true);
    t("lock wait $v", fn() => $d->lock('a', 1, $bad));
}
var_dump(raw_redis('EXISTS', 'phpt_023:a'));
echo "--- exact message\n";
try { $d->lock('a', -1); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
echo "--- types (arginfo)\n";
t('lock name array', fn() => $d->lock([]));
t('lock ttl string', fn() => $d->lock('a', 'long'));
t('lock wait array', fn() => $d->lock('a', 1, []));
t('tryLock no args', fn() => $d->tryLock());
t('lock too many args', fn() => $d->lock('a', 1, 1, 'tok', 1));
t('synchronized no callback', fn() => $d->synchronized('a'));
t('stats with arg', fn() => $d->stats(1));
echo "--- strict_types\n";
file_put_contents(__DIR__ . '/023-strict.inc', '<?php declare(strict_types=1);
function strict_calls(DistLock $d) {
    try { $d->lock("a", 1, 0)->release(); echo "lock ttl int in strict mode: accepted\n"; } catch (Throwable $e) { echo get_class($e), "\n"; }
    try { $d->lock("a", "1"); echo "accepted?!\n"; } catch (TypeError $e) { echo "lock ttl string in strict mode: TypeError\n"; }
}');
require __DIR__ . '/023-strict.inc';
strict_calls($d);
echo "--- numeric values that are fine\n";
$l = $d->lock('a', 1, 0);          // int ttl and wait
var_dump($l->release());
$l = $d->lock('a', "2", "0");      // numeric strings in coercive mode
var_dump(raw_redis('PTTL', 'phpt_023:a') > 1900, $l->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_023:');
@unlink(__DIR__ . '/023-strict.inc');
?>
--EXPECT--
lock ttl 0.0: ValueError Argument #2 ($ttl)
tryLock ttl 0.0: ValueError Argument #2 ($ttl)
lock ttl -1.0: ValueError Argument #2 ($ttl)
tryLock ttl -1.0: ValueError Argument #2 ($ttl)
lock ttl INF: ValueError Argument #2 ($ttl)
tryLock ttl INF: ValueError Argument #2 ($ttl)
lock ttl -INF: ValueError Argument #2 ($ttl)
tryLock ttl -INF: ValueError Argument #2 ($ttl)
lock ttl NAN: ValueError Argument #2 ($ttl)
tryLock ttl NAN: ValueError Argument #2 ($ttl)
lock ttl 1000000001.0: ValueError Argument #2 ($ttl)
tryLock ttl 1000000001.0: ValueError Argument #2 ($ttl)
lock wait -0.001: ValueError Argument #3 ($wait)
lock wait INF: ValueError Argument #3 ($wait)
lock wait NAN: ValueError Argument #3 ($wait)
lock wait 1000000001.0: ValueError Argument #3 ($wait)
int(0)
--- exact message
DistLock::lock(): Argument #2 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
--- types (arginfo)
lock name array: TypeError Argument #1 ($name)
lock ttl string: TypeError Argument #2 ($ttl)
lock wait array: TypeError Argument #3 ($wait)
tryLock no args: ArgumentCountError DistLock::tryLock() expects at least 1 argument, 0 given
lock too many args: ArgumentCountError DistLock::lock() expects at most 4 arguments, 5 given
synchronized no callback: ArgumentCountError DistLock::synchronized() expects at least 2 arguments, 1 given
stats with arg: ArgumentCountError DistLock::stats() expects exactly 0 arguments, 1 given
--- strict_types
lock ttl int in strict mode: accepted
lock ttl string in strict mode: TypeError
--- numeric values that are fine
bool(true)
bool(true)
bool(true)
