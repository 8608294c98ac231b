--TEST--
on_lost 'throw': a busy PHP loop is interrupted by LockLostException naming the lock within ttl/3 + margin; a pcntl async signal handler still fires (the interrupt hook chains)
--EXTENSIONS--
distlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_206:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();

// a signal handler installed before any lease (pcntl's interrupt hook runs too)
pcntl_async_signals(true);
$signals = 0;
pcntl_signal(SIGUSR1, function () use (&$signals) { $signals++; });

/* Runs $first, then a busy loop until $until() or the deadline; returns the
 * seconds spent or the exception (which may come as soon as $first is done). */
function spin(float $seconds, ?callable $until = null, ?callable $first = null): float|Throwable
{
    // Valgrind runs one thread at a time and may not hand over to the watchdog
    // thread while this thread never enters the kernel: there, a tiny sleep now
    // and then lets it run. The exception still comes from the VM interrupt.
    $yield = is_valgrind();
    $t0 = lc_now();
    $x = 0;
    try {
        if ($first !== null) {
            $first();
        }
        $deadline = microtime(true) + $seconds;
        while (microtime(true) < $deadline) {
            $x++;
            if ($until !== null && $until()) {
                break;
            }
            if ($yield && ($x & 1023) === 0) {
                usleep(50);
            }
        }
    } catch (Throwable $t) {
        return $t;
    }
    return lc_now() - $t0;
}

$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'on_lost' => 'throw']);
// 0.6 s leases, renewed every 0.2 s (under valgrind 2.4 s: its threads are slow too)
$l = $dl->lock('job:42', 0.6 * $slow);
$other = $dl->lock('other', 0.6 * $slow);

// 1. a signal during a busy loop, with a lease held: the handler runs
posix_kill(getmypid(), SIGUSR1);
$r = spin(2 * $slow, fn () => $signals === 1);
echo "signal before: ", $signals, " ", $r instanceof Throwable ? get_class($r) : 'no exception', "\n";

// 2. a busy loop over a renewal while still ours: nothing is thrown
$r = spin(0.5);
echo "while held: ", $r instanceof Throwable ? get_class($r) . ': ' . $r->getMessage() : 'no exception', "\n";

// 3. another owner takes the key; the loop is interrupted at the next renewal (every ttl/3)
$t0 = lc_now();
$r = spin(3 + 3 * $slow, null, fn () => raw_redis('SET', $prefix . 'job:42', 'someone-else', 'PX', 10000));
$took = lc_now() - $t0;
echo get_class($r), ': ', $r->getMessage(), "\n";
echo "interrupted within ttl/3 + margin: ", var_export($took <= 0.2 * $slow + 1.0 * $slow, true), "\n";
var_dump($l->isAcquired(), $l->release(), $l->refresh());
var_dump(raw_redis('GET', $prefix . 'job:42'));

// 4. thrown once: a further busy loop runs to its end; the other lease is still renewed
$r = spin(0.5);
echo "after: ", $r instanceof Throwable ? get_class($r) : 'no exception', "\n";
var_dump($other->isAcquired());

// 5. the signal handler still fires after the exception
posix_kill(getmypid(), SIGUSR1);
$r = spin(2 * $slow, fn () => $signals === 2);
echo "signal after: ", $signals, " ", $r instanceof Throwable ? get_class($r) : 'no exception', "\n";

// 6. a loss while PHP sleeps in C: thrown at the next PHP statement after the sleep
try {
    raw_redis('DEL', $prefix . 'other');
    usleep((int)(600000 * $slow));
    $x = 1;
    for ($i = 0; $i < 1000; $i++) { $x++; }
    echo "not thrown\n";
} catch (DistLock\LockLostException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
var_dump($other->release());
echo "lost: ", $dl->stats()['lost'] >= 2 ? 'counted' : 'NOT counted', "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_206:');
?>
--EXPECT--
signal before: 1 no exception
while held: no exception
DistLock\LockLostException: The lock "job:42" was lost: its lease was taken over or expired while held
interrupted within ttl/3 + margin: true
bool(false)
bool(false)
bool(false)
string(12) "someone-else"
after: no exception
bool(true)
signal after: 2 no exception
DistLock\LockLostException: The lock "other" was lost: its lease was taken over or expired while held
bool(false)
lost: counted
