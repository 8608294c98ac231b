--TEST--
Redlock: 8 workers x 500 locked read-modify-writes of a file while one master after another is stopped and resumed: no update is lost
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$file = tempnam(sys_get_temp_dir(), 'rl');
file_put_contents($file, '0');
$workers = 8;
$each = 500;
$pids = [];
for ($w = 0; $w < $workers; $w++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        // ttl 5 s and timeout 0.2 s: each master gets min(0.2 s, ttl / 10) per round,
        // so a master that is not stopped is never taken for one on a busy machine.
        $d = new DistLock(rl_uris(), ['ttl' => 5, 'timeout' => 0.2, 'wait' => 60, 'retry_delay' => 0.002, 'retry_jitter' => 0.004]);
        $errors = 0;
        $first = [];
        for ($i = 0; $i < $each; $i++) {
            for (;;) {
                try {
                    $l = $d->lock('counter');
                    break;
                } catch (DistLock\ConnectionException $e) {
                    $errors++;   // a quorum failure while two masters were out: try again
                    if ($errors <= 3) $first[] = $e->getMessage();
                    usleep(10000);
                }
            }
            $n = (int)file_get_contents($file);
            file_put_contents($file, (string)($n + 1));
            try {
                $l->release();
            } catch (DistLock\ConnectionException $e) {
                $errors++;   // not released everywhere: it expires at its ttl (slower, never unsafe)
            }
        }
        // Connection errors (a quorum that did not answer while masters were
        // stopped) are allowed: they are reported, and retried; an update lost is not.
        file_put_contents(getenv('DISTLOCK_LOG_DIR') . '/redlock-workers.txt',
                          "worker $w: $errors connection errors\n" . implode("\n", array_map(fn($m) => "  $m", $first)) . "\n", FILE_APPEND);
        exit(0);
    }
    $pids[] = $pid;
}
// One master after another is stopped for 0.3 s and resumed, until the workers are done.
$running = $pids;
$node = 0;
$stops = 0;
try {
    while ($running) {
        rl_stop([$node]);
        $stops++;
        usleep(300000);
        rl_cont([$node]);
        $node = ($node + 1) % 5;
        usleep(100000);
        foreach ($running as $k => $pid) {
            if (pcntl_waitpid($pid, $status, WNOHANG) === $pid) {
                unset($running[$k]);
                if (pcntl_wexitstatus($status) !== 0) echo "worker $pid exited ", pcntl_wexitstatus($status), "\n";
            }
        }
    }
} finally {
    rl_cont_all();
}
echo "counter: ", file_get_contents($file), " of ", $workers * $each, "\n";
var_dump($stops >= 5);
unlink($file);
?>
--EXPECT--
counter: 4000 of 4000
bool(true)
