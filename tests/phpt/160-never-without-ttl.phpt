--TEST--
A lock key never exists without a TTL: sampled PTTL while 4 processes lock and release
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
$prefix = 'phpt_160:';
raw_redis_del_prefix($prefix);
$names = ['a', 'b', 'c'];
raw_redis('SET', $prefix . 'go', 0);

$pids = [];
for ($w = 0; $w < 4; $w++) {
    $pids[] = fork_child(function () use ($w, $prefix, $names) {
        $dl = new DistLock(test_uri(), ['prefix' => $prefix, 'retry_delay' => 0.001, 'retry_jitter' => 0.001]);
        while (raw_redis('GET', $prefix . 'go') !== '1') { usleep(1000); }
        $bad = 0;
        for ($i = 0; $i < 50; $i++) {
            $name = $names[random_int(0, count($names) - 1)];
            if ($i % 3 === 0) {
                $l = $dl->tryLock($name, random_int(5, 20) / 10);
                if ($l === null) { continue; }
            } else {
                $l = $dl->lock($name, random_int(5, 20) / 10, 10);
            }
            usleep(random_int(100, 1500));
            if ($i % 4 === 0) { $bad += (int)!$l->refresh(random_int(5, 20) / 10); }
            if ($i % 5 === 0) { unset($l); continue; }    // scoped release
            $bad += (int)!$l->release();
        }
        return $bad ? 1 : 0;
    });
}

// sampler: PTTL of the lock keys while the workers run
$sampler = RawConn::main();
raw_redis('SET', $prefix . 'go', 1);
$samples = 0; $held = 0; $noTtl = 0; $running = count($pids); $st = [];
while ($running > 0) {
    $k = $prefix . $names[random_int(0, count($names) - 1)];
    $pttl = $sampler->cmd('PTTL', $k);
    $samples++;
    if ($pttl === -1) { $noTtl++; }
    if ($pttl > 0) { $held++; }
    foreach ($pids as $i => $p) {
        $s = 0;
        if (pcntl_waitpid($p, $s, WNOHANG) === $p) {
            $st[] = pcntl_wifexited($s) ? 'exit=' . pcntl_wexitstatus($s) : 'signal';
            unset($pids[$i]);
            $running--;
        }
    }
}
echo "workers: ", implode(',', array_unique($st)), "\n";
echo "samples taken: ", $samples > 100 ? 'enough' : $samples, ", saw held keys: ", var_export($held > 0, true), "\n";
echo "keys without TTL: $noTtl\n";
foreach ($names as $n) {
    echo "$n left: ", raw_redis('EXISTS', $prefix . $n), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_160:');
?>
--EXPECT--
workers: exit=0
samples taken: enough, saw held keys: true
keys without TTL: 0
a left: 0
b left: 0
c left: 0
