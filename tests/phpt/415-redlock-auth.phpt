--TEST--
Redlock: a missing or wrong password fails every operation as an authentication error on each master (a QuorumException naming them), never as a name held by someone else (a try's null, a wait's timeout, isLocked() false)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; require __DIR__ . '/inc/proc.inc'; if (redis_server_bin() === null) die('skip redis-server not found'); ?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$pass = 'pw-415-secret';
$ports = [];
for ($i = 0; $i < 3; $i++) {
    $ports[] = $port = start_test_redis('415');   // its readiness check pings without a password: set one after
    $c = RawConn::tcp('127.0.0.1', $port);
    $c->cmd('CONFIG', 'SET', 'requirepass', $pass);
    $c->close();
}
$uris = fn (string $auth) => array_map(fn ($p) => "redis://{$auth}127.0.0.1:$p", $ports);
$ops = [
    'tryLock' => fn (DistLock $d) => $d->tryLock('x', 2),
    'lock' => fn (DistLock $d) => $d->lock('x', 2, 0.3),
    'synchronized' => fn (DistLock $d) => $d->synchronized('x', fn () => 'ran', 2, 0.3),
    'isLocked' => fn (DistLock $d) => $d->isLocked('x'),
    'status' => fn (DistLock $d) => $d->status('x'),
    'owner' => fn (DistLock $d) => $d->owner('x'),
    'release' => fn (DistLock $d) => $d->release('x', 'abc'),
    'forceRelease' => fn (DistLock $d) => $d->forceRelease('x'),
];
foreach (['' => 'no password', ':wrong@' => 'wrong password'] as $auth => $label) {
    foreach ($ops as $name => $op) {
        try {
            $r = $op(new DistLock($uris($auth)));
            echo "$label, $name: returned ", var_export($r, true), "\n";
        } catch (DistLock\QuorumException $e) {
            $m = $e->getMessage();
            $told = substr_count($m, 'Authentication failed at Redis 127.0.0.1:');
            $why = str_contains($m, 'NOAUTH') ? 'NOAUTH' : (str_contains($m, 'WRONGPASS') ? 'WRONGPASS' : 'other');
            printf("%s, %s: QuorumException, %s, %s, password %s\n", $label, $name, $told >= 2 ? 'a quorum told' : "$told told", $why,
                str_contains($m, $pass) || str_contains($m, 'wrong@') ? 'SHOWN' : 'not shown');
        } catch (Throwable $e) {
            echo "$label, $name: ", get_class($e), ": ", $e->getMessage(), "\n";
        }
    }
}
// With the password everything works.
$d = new DistLock($uris(":$pass@"));
$l = $d->tryLock('x', 2);
var_dump($l instanceof DistLock\Lock, $d->isLocked('x'), $l->release());
?>
--CLEAN--
<?php require __DIR__ . '/inc/proc.inc'; stop_test_redis_all('415'); ?>
--EXPECT--
no password, tryLock: QuorumException, a quorum told, NOAUTH, password not shown
no password, lock: QuorumException, a quorum told, NOAUTH, password not shown
no password, synchronized: QuorumException, a quorum told, NOAUTH, password not shown
no password, isLocked: QuorumException, a quorum told, NOAUTH, password not shown
no password, status: QuorumException, a quorum told, NOAUTH, password not shown
no password, owner: QuorumException, a quorum told, NOAUTH, password not shown
no password, release: QuorumException, a quorum told, NOAUTH, password not shown
no password, forceRelease: QuorumException, a quorum told, NOAUTH, password not shown
wrong password, tryLock: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, lock: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, synchronized: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, isLocked: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, status: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, owner: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, release: QuorumException, a quorum told, WRONGPASS, password not shown
wrong password, forceRelease: QuorumException, a quorum told, WRONGPASS, password not shown
bool(true)
bool(true)
bool(true)
