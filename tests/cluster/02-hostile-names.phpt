--TEST--
Cluster: names whose companion keys used to land in another slot (a{b, a{}b, }x, {, }{ ...) wait, wake, hand over fairly and fence without a CROSSSLOT error
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$names = ['a{b', 'a{}b', '}x', '{', '}{', '{}', 'x}y{z', "\xff{\x00}", 'plain', 'tag{t}'];
foreach ([[], ['fair' => true], ['fencing' => true]] as $mode) {
    $ok = 0;
    foreach ($names as $name) {
        $opts = ['cluster' => true, 'ttl' => 10, 'defer_release' => false] + $mode;
        $d = new DistLock(cl_seeds(), $opts);
        $l = $d->lock($name, 10, 0);
        $pid = pcntl_fork();
        if ($pid === 0) {
            // Another process waits on the lock's wake list (a companion key) until the release wakes it.
            $w = new DistLock(cl_seeds(), $opts);
            $t = hrtime(true);
            try {
                $g = $w->lock($name, 10, 5);
                exit(($g->isAcquired() && (hrtime(true) - $t) / 1e9 < 4) ? 0 : 1);
            } catch (Throwable $e) {
                fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
                exit(2);
            }
        }
        usleep(300000);   // the waiter is blocked by now
        $l->release();
        pcntl_waitpid($pid, $st);
        if (pcntl_wexitstatus($st) === 0) $ok++; else echo bin2hex($name), " failed with ", pcntl_wexitstatus($st), "\n";
    }
    printf("%s: %d of %d names handed over\n", $mode ? array_key_first($mode) : 'default', $ok, count($names));
}
?>
--EXPECT--
default: 10 of 10 names handed over
fair: 10 of 10 names handed over
fencing: 10 of 10 names handed over
