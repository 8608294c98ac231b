--TEST--
Release after SCRIPT FLUSH falls back to EVAL (0 failed releases); the script cache stays flat (on a server of its own: the count must not see other tests' scripts, and its flushes must not touch theirs)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = start_test_redis('140');
$raw = RawConn::tcp('127.0.0.1', $port);
function raw140(string ...$args) { global $raw; return $raw->cmd(...$args); }
$prefix = 'phpt_140:';
$dl = new DistLock("redis://127.0.0.1:$port", ['prefix' => $prefix]);

function cached_scripts(): int {
    preg_match('/number_of_cached_scripts:(\d+)/', raw140('INFO', 'memory'), $m);
    return (int)$m[1];
}

// the single case
$l = $dl->lock('one', 30, 1);
var_dump(raw140('SCRIPT', 'FLUSH'));
var_dump($l->release(), raw140('EXISTS', $prefix . 'one'));

// 50 locks, a flush before each release (and one between acquire and refresh)
$failed = 0; $left = 0; $refreshFailed = 0;
for ($i = 0; $i < 50; $i++) {
    $l = $dl->lock("n:$i", 30, 1);
    raw140('SCRIPT', 'FLUSH');
    if ($i % 5 === 0) {
        $refreshFailed += (int)!$l->refresh(20);
        $pttl = raw140('PTTL', $prefix . "n:$i");
        $refreshFailed += (int)!($pttl > 10000 && $pttl <= 20000);
        raw140('SCRIPT', 'FLUSH');
    }
    $failed += (int)!$l->release();
    $left += raw140('EXISTS', $prefix . "n:$i");
}
echo "failed releases: $failed, failed refreshes: $refreshFailed, keys left: $left\n";

// flushed while held by a handle that is only destroyed: scoped release still works
$l = $dl->lock('scoped', 30, 1);
raw140('SCRIPT', 'FLUSH');
unset($l);                 // deferred, and sent by EVAL: no NOSCRIPT can leave it for later (decision 0063)
$dl->isLocked('scoped');
echo "scoped release after flush, key left: ", raw140('EXISTS', $prefix . 'scoped'), "\n";
// the next command, written right behind that release, finds the name free: by
// EVALSHA the release would be refused (NOSCRIPT) and this SET NX would run first
$l = $dl->lock('scoped', 30, 1);
raw140('SCRIPT', 'FLUSH');
unset($l);
$l = $dl->tryLock('scoped', 30);
echo "tryLock right after the scoped release: ", $l === null ? "refused" : "granted", "\n";
unset($l);

// the cache does not grow with the number of locks, names or tokens
raw140('SCRIPT', 'FLUSH');
for ($i = 0; $i < 200; $i++) {
    $l = $dl->tryLock("cycle:" . ($i % 7) . "'\"]]", 30);
    if ($l === null) { echo "not acquired $i\n"; continue; }
    if ($i % 10 === 0) { $l->refresh(10); $l->isAcquired(); $l->remainingLifetime(); }
    $l->release();
}
$n = cached_scripts();
// at most the extension's own scripts (src/core/lease/dl_scripts.h has 7), however many names and tokens
echo "cached scripts after 200 cycles: ", ($n <= 7 ? 'at most 7' : $n), "\n";
echo "keys left: ", count(raw140('KEYS', $prefix . '*')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('140');
?>
--EXPECT--
string(2) "OK"
bool(true)
int(0)
failed releases: 0, failed refreshes: 0, keys left: 0
scoped release after flush, key left: 0
tryLock right after the scoped release: granted
cached scripts after 200 cycles: at most 7
keys left: 0
