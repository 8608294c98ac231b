--TEST--
Mutual exclusion: 4 processes x 50 read-sleep-write increments under one lock lose no update (and without the lock they do)
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_150:';
raw_redis_del_prefix($prefix);
const PROCS = 4;
const ROUNDS = 50;

/* Runs PROCS workers; each does ROUNDS non-atomic increments (GET, sleep, SET). */
function run(bool $useLock, DistLock $parentDl): array {
    global $prefix;
    $ctr = $prefix . ($useLock ? 'counter' : 'counter_nolock');
    $go = $prefix . 'go';
    raw_redis('SET', $ctr, 0);
    raw_redis('DEL', $go, $prefix . 'inside', $prefix . 'violations', $prefix . 'badrelease');
    $pids = [];
    for ($w = 0; $w < PROCS; $w++) {
        $pids[] = fork_child(function () use ($w, $useLock, $parentDl, $ctr, $go, $prefix) {
            // half the workers use the DistLock inherited through fork(), half their own
            $dl = $w % 2 ? $parentDl : new DistLock(test_uri(), ['prefix' => $prefix]);
            while (raw_redis('GET', $go) === null) { usleep(1000); }
            for ($i = 0; $i < ROUNDS; $i++) {
                $l = $useLock ? $dl->lock('shared', 5, 10) : null;
                if (raw_redis('SETNX', $prefix . 'inside', $w) !== 1) {
                    raw_redis('INCR', $prefix . 'violations');
                }
                $v = (int)raw_redis('GET', $ctr);
                usleep($useLock ? random_int(200, 1000) : random_int(1000, 3000));
                raw_redis('SET', $ctr, $v + 1);
                raw_redis('DEL', $prefix . 'inside');
                if ($useLock && !$l->release()) {
                    raw_redis('INCR', $prefix . 'badrelease');
                }
            }
            return 0;
        });
    }
    raw_redis('SET', $go, 1);
    $st = [];
    foreach ($pids as $p) { $st[] = wait_child($p); }
    return [implode(',', array_unique($st)), (int)raw_redis('GET', $ctr),
            (int)raw_redis('GET', $prefix . 'violations'), (int)raw_redis('GET', $prefix . 'badrelease')];
}

$dl = new DistLock(test_uri(), ['prefix' => $prefix]);
var_dump($dl->isLocked('shared'));   // the parent's connection exists before fork()

[$st, $counter, $violations, $badRelease] = run(true, $dl);
echo "with lock: children $st, counter=$counter, overlapping holders=$violations, failed releases=$badRelease\n";
echo "lost updates: ", 200 - $counter, "\n";
var_dump($dl->isLocked('shared'));

// control: the same workload without the lock must show lost updates / overlaps,
// otherwise the checker above proves nothing
[$st, $counter, $violations] = run(false, $dl);
echo "without lock: children $st, lost updates detected=", var_export($counter < 200, true),
     ", overlaps detected=", var_export($violations > 0, true), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_150:');
?>
--EXPECT--
bool(false)
with lock: children exit=0, counter=200, overlapping holders=0, failed releases=0
lost updates: 0
bool(false)
without lock: children exit=0, lost updates detected=true, overlaps detected=true
