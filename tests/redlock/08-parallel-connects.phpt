--TEST--
Redlock: masters whose host does not answer a connect (SYNs dropped) are connected to in parallel, within one node timeout, not one connect_timeout after another
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
/* A listening socket whose accept queue is full drops further SYNs: a
 * connect to it hangs, as to a host that is down without refusing. */
function blackhole(array &$keep): string
{
    $ctx = stream_context_create(['socket' => ['backlog' => 0]]);
    $srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $ctx);
    $addr = stream_socket_get_name($srv, false);
    for ($i = 0; $i < 3; $i++) {
        $keep[] = @stream_socket_client("tcp://$addr", $e, $m, 0.2, STREAM_CLIENT_CONNECT | STREAM_CLIENT_ASYNC_CONNECT);
    }
    usleep(100000);
    $keep[] = $srv;
    return "redis://$addr";
}
$keep = [];
$u = rl_uris();
$holes = [blackhole($keep), blackhole($keep)];
// Is it really a black hole? A plain connect to it times out.
$t = hrtime(true);
$probe = @stream_socket_client('tcp://' . substr($holes[0], 8), $e, $m, 0.3);
printf("probe connect: %s\n", $probe === false && (hrtime(true) - $t) / 1e9 >= 0.25 ? 'timed out' : 'answered');

// 3 live + 2 black holes, connect_timeout 3 s each: one after the other would take 6 s.
$d = new DistLock([$u[0], $u[1], $u[2], $holes[0], $holes[1]], ['ttl' => 10, 'timeout' => 0.3, 'connect_timeout' => 3, 'wait' => 0]);
$t = hrtime(true);
$l = $d->tryLock('pc');
$took = (hrtime(true) - $t) / 1e9;
var_dump($l?->isAcquired(), $took < 1.0);
$t = hrtime(true);
var_dump($l->release(), (hrtime(true) - $t) / 1e9 < 1.0);

// 2 live + 3 black holes: a QuorumException after one node timeout (0.3 s), not 9 s.
$d = new DistLock([$u[3], $u[4], $holes[0], $holes[1], blackhole($keep)], ['ttl' => 10, 'timeout' => 0.3, 'connect_timeout' => 3, 'wait' => 0]);
$t = hrtime(true);
try {
    $d->tryLock('pc2');
    echo "no exception\n";
} catch (DistLock\QuorumException $e) {
    $took = (hrtime(true) - $t) / 1e9;
    var_dump($took < 1.5);
    echo preg_replace('/127\.0\.0\.1:\d+/', 'HOST', $e->getMessage()), "\n";
}
?>
--EXPECT--
probe connect: timed out
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
Redlock acquire: 3 of 5 masters failed, more than the 2 a quorum of 3 survives; Redis at HOST: not connected within this call's 0.300 s bound (timeout); Redis at HOST: not connected within this call's 0.300 s bound (timeout); Redis at HOST: not connected within this call's 0.300 s bound (timeout)
