--TEST--
paused holder (SIGSTOP past its TTL): another owner takes the lock with a greater fencing token; on resume the holder's watchdog finds the lease lost and LockLostException interrupts its busy loop; its stale write is rejected
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
$prefix = 'phpt_212:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();
$store = $prefix . 'store';   // a resource that rejects writes with a smaller fencing token

/* Writes $value to the store if $fence is at least the greatest seen; true when accepted. */
function fenced_write(string $store, int $fence, string $value): bool
{
    $script = "local max = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') "
        . "if tonumber(ARGV[1]) < max then return 0 end "
        . "redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2]) return 1";
    return raw_redis('EVAL', $script, 1, $store, $fence, $value) === 1;
}

$pid = pcntl_fork();
if ($pid < 0) {
    die("fork failed\n");
}
if ($pid === 0) {
    ini_set('display_errors', '0');
    $r = [];
    try {
        $dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'on_lost' => 'throw', 'fencing' => true]);
        $l = $dl->lock('res', 0.5, 5);
        $fence = $l->fencingToken();
        $r[] = 'first_write=' . (int)fenced_write($store, $fence, 'child-1');
        raw_redis('SET', $prefix . 'ready', (string)$fence);
        // work in PHP: the parent stops this process in here
        $deadline = microtime(true) + 8 * $slow;
        $x = 0;
        // Asked once, outside the loop: PHP 8.2 can leak the string an internal
        // function (getenv) returned when an exception is raised at the VM
        // interrupt right after it.
        $yield = is_valgrind();
        try {
            while (microtime(true) < $deadline) {
                $x++;
                if ($yield && ($x & 1023) === 0) {
                    usleep(50);   // let valgrind run the watchdog thread (see 206)
                }
            }
            $r[] = 'not interrupted';
        } catch (DistLock\LockLostException $e) {
            $r[] = 'lost: ' . $e->getMessage();
        }
        // a stale write after the loss is rejected by the store
        $r[] = 'stale_write=' . (int)fenced_write($store, $fence, 'child-2');
        $r[] = 'release=' . var_export($l->release(), true);
    } catch (Throwable $t) {
        $r[] = get_class($t) . ': ' . $t->getMessage();
    }
    raw_redis('SET', $prefix . 'result', implode(' | ', $r));
    exit(0);
}

$childFence = null;
lc_wait_until(function () use ($prefix, &$childFence) {
    $childFence = raw_redis('GET', $prefix . 'ready');
    return $childFence !== null;
}, 10 * $slow);
usleep(100000);
posix_kill($pid, SIGSTOP);
// paused past its ttl (0.5 s): nobody renews the lease, it expires, another owner takes it
$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'fencing' => true]);
$l = $dl->lock('res', 30, 3 * $slow);
$fence = $l->fencingToken();
echo "parent's token greater: ", var_export($fence > (int)$childFence, true), "\n";
var_dump(fenced_write($store, $fence, 'parent'));
posix_kill($pid, SIGCONT);
echo wait_child($pid), "\n";
echo raw_redis('GET', $prefix . 'result'), "\n";
var_dump(raw_redis('HGET', $store, 'value'));
// the parent's lease was never touched by the resumed child
var_dump(raw_redis('GET', $prefix . 'res') === $l->token(), $l->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_212:');
?>
--EXPECT--
parent's token greater: true
bool(true)
exit=0
first_write=1 | lost: The lock "res" was lost: its lease was taken over or expired while held | stale_write=0 | release=false
string(6) "parent"
bool(true)
bool(true)
