--TEST--
Long-running workers: DistLock::endRequest() after each of 1,000 handled requests (some throwing, some leaking handles into globals, static caches and cycles) leaves no lease behind but detached ones; connections stay the same, memory stays flat
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$uri = test_uri();
$p = 'phpt_220:';
raw_redis_del_prefix($p);
raw_redis('PING');                       // raw_redis()'s own connection, before ours
$base = lc_own_ports();

// A worker builds its services once (a container singleton), then loops.
$d = new DistLock($uri, ['prefix' => $p]);
$wd = new DistLock($uri, ['prefix' => $p, 'watchdog' => true, 'ttl' => 5]);
$leader = $d->lock('leader', 60);        // worker-wide: meant to outlive every request
$leader->detach();

final class Cache { public static array $locks = []; }
final class Node { public ?Node $self = null; public $fn; }
$leakedGlobal = null;

/* One simulated HTTP request; returns how many leases it leaves behind. */
function handle(int $i, DistLock $d, DistLock $wd): int
{
    global $leakedGlobal;
    switch ($i % 6) {
        case 0:                          // well-behaved: scoped release
            $l = $d->lock("r$i", 10, 1);
            return 0;
        case 1:                          // a handle parked in a static cache
            Cache::$locks[$i % 7] = $d->lock('cache' . ($i % 7), 10, 1);
            return 1;
        case 2:                          // an exception out of synchronized(): released by it
            $d->synchronized("s$i", function () { throw new RuntimeException('boom'); });
            return 0;
        case 3:                          // a watchdog lease left in a global, then an exception
            $leakedGlobal = $wd->lock('w' . ($i % 3), 5, 1);
            throw new LogicException('handler died');
        case 4:                          // reentrant, one handle leaked into a cycle (no destructor until GC)
            $a = $d->lock('re', 10, 1);
            $n = new Node();
            $n->self = $n;
            $n->fn = function () use ($a) { return $a; };
            $b = $d->lock('re', 10, 1);
            $b->release();
            return 1;
        default:                         // an Error deep in a callback, a handle captured on the way
            $d->synchronized("x$i", function () use ($d, $i) {
                Cache::$locks['deep'] = $d->lock("deep$i", 10, 1);
                throw new Error('fatal-like');
            });
            return 1;
    }
}

$survived = $released = $expected = $errors = 0;
$mem0 = $ports0 = null;
for ($i = 0; $i < 1000; $i++) {
    try {
        $expected += handle($i, $d, $wd);
    } catch (Throwable $t) {
        $errors++;
        if ($t instanceof LogicException || $t instanceof Error) $expected++;   // cases 3 and 5 leave one
    } finally {
        $released += DistLock::endRequest();
    }
    // After each request: nothing but the detached leader is held.
    $keys = raw_redis('KEYS', $p . '*');
    if ($keys !== [$p . 'leader']) { $survived++; if ($survived < 4) echo "after request $i: ", json_encode($keys), "\n"; }
    if ($i === 99) {
        gc_collect_cycles();
        $mem0 = memory_get_usage();
        $ports0 = lc_ext_ports($base);
    }
}
gc_collect_cycles();
$growth = memory_get_usage() - $mem0;
$ports = lc_ext_ports($base);
$s = $d->stats();
echo "requests: 1000, errors thrown: $errors\n";
echo "requests that left a lease behind: $survived\n";
echo "leases released by endRequest(): ", var_export($released === $expected, true), " ($expected expected)\n";
if ($released !== $expected) echo "  released $released\n";
echo "lost: {$s['lost']}, connection errors: {$s['connection_errors']}\n";
echo "the same connections after warm-up: ", var_export($ports === $ports0, true), ", the plain instance's and the watchdog instance's: ",
    var_export(count($ports) >= 2 && count($ports) <= 3, true), "\n";
echo "memory growth after warm-up under 1 MB: ", var_export(is_valgrind() || $growth < 1024 * 1024, true), "\n";
echo "the detached leader survived: ", var_export(raw_redis('EXISTS', $p . 'leader') === 1, true), "\n";
// A handle whose lease endRequest() released: release() says it was no longer ours.
var_dump(Cache::$locks[1]->release(), Cache::$locks[1]->isAcquired());
var_dump(DistLock::endRequest());
$d->forceRelease('leader');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_220:');
?>
--EXPECT--
requests: 1000, errors thrown: 500
requests that left a lease behind: 0
leases released by endRequest(): true (666 expected)
lost: 0, connection errors: 0
the same connections after warm-up: true, the plain instance's and the watchdog instance's: true
memory growth after warm-up under 1 MB: true
the detached leader survived: true
bool(false)
bool(false)
int(0)
