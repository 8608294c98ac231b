--TEST--
Classes: hierarchy, final, not constructible, methods and signatures
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
foreach (['DistLock', 'DistLock\Lock', 'DistLock\Exception', 'DistLock\ConnectionException',
          'DistLock\LockTimeoutException', 'DistLock\LockLostException'] as $c) {
    $r = new ReflectionClass($c);
    $chain = [];
    for ($p = $r->getParentClass(); $p; $p = $p->getParentClass()) {
        $chain[] = $p->getName();
    }
    printf("%s final=%s parents=[%s]\n", $c, var_export($r->isFinal(), true), implode(',', $chain));
}
var_dump(new DistLock\ConnectionException('x') instanceof RuntimeException);
var_dump(is_subclass_of('DistLock\LockLostException', 'DistLock\Exception'));

$m = [];
foreach ((new ReflectionClass('DistLock'))->getMethods() as $meth) {
    $params = [];
    foreach ($meth->getParameters() as $p) {
        $params[] = ($p->getType() ? $p->getType() . ' ' : '') . '$' . $p->getName() . ($p->isOptional() ? '?' : '');
    }
    $m[] = ($meth->isStatic() ? 'static ' : '') . $meth->getName() . '(' . implode(', ', $params) . ')' . ($meth->hasReturnType() ? ': ' . $meth->getReturnType() : '');
}
sort($m);
echo implode("\n", $m), "\n--\n";
$m = [];
foreach ((new ReflectionClass('DistLock\Lock'))->getMethods() as $meth) {
    $m[] = $meth->getName() . ($meth->hasReturnType() ? ': ' . $meth->getReturnType() : '');
}
sort($m);
echo implode("\n", $m), "\n";

// the password and token parameters are marked sensitive
foreach ([['DistLock', '__construct', 'servers'], ['DistLock', '__construct', 'options'], ['DistLock', 'restore', 'token'],
          ['DistLock', 'lock', 'token'], ['DistLock', 'tryLock', 'token'], ['DistLock', 'release', 'token'],
          ['DistLock', 'refresh', 'token'], ['DistLock', 'restoreShared', 'token'], ['DistLock', 'restoreExclusive', 'token'],
          ['DistLock', 'lockShared', 'token'], ['DistLock', 'tryLockShared', 'token'], ['DistLock', 'lockExclusive', 'token'],
          ['DistLock', 'tryLockExclusive', 'token'], ['DistLock', 'acquirePermits', 'token'],
          ['DistLock', 'tryAcquirePermits', 'token'], ['DistLock', 'restorePermits', 'token']] as [$c, $f, $a]) {
    foreach ((new ReflectionMethod($c, $f))->getParameters() as $p) {
        if ($p->getName() === $a) {
            printf("%s::%s \$%s sensitive=%d\n", $c, $f, $a, count($p->getAttributes('SensitiveParameter')));
        }
    }
}
?>
--EXPECT--
DistLock final=true parents=[]
DistLock\Lock final=true parents=[]
DistLock\Exception final=false parents=[RuntimeException,Exception]
DistLock\ConnectionException final=false parents=[DistLock\Exception,RuntimeException,Exception]
DistLock\LockTimeoutException final=false parents=[DistLock\Exception,RuntimeException,Exception]
DistLock\LockLostException final=false parents=[DistLock\Exception,RuntimeException,Exception]
bool(true)
bool(true)
__call(string $method, array $args): mixed
__construct(array|string $servers?, array $options?)
acquirePermits(string $name, int $limit, int $permits?, ?float $ttl?, ?float $wait?, ?string $token?): DistLock\Lock
forceRelease(string $name): bool
isLocked(string $name): bool
lock(string $name, ?float $ttl?, ?float $wait?, ?string $token?): DistLock\Lock
lockAll(array $names, ?float $ttl?, ?float $wait?): array
lockExclusive(string $name, ?float $ttl?, ?float $wait?, ?string $token?): DistLock\Lock
lockShared(string $name, ?float $ttl?, ?float $wait?, ?string $token?): DistLock\Lock
owner(string $name): ?string
permits(string $name): array
refresh(string $name, string $token, ?float $ttl?): bool
release(string $name, string $token): bool
releaseAll(array $locks): int
restore(string $name, string $token): DistLock\Lock
restoreExclusive(string $name, string $token): DistLock\Lock
restorePermits(string $name, string $token): DistLock\Lock
restoreShared(string $name, string $token): DistLock\Lock
static addObserver(callable $observer): void
static endRequest(): int
static removeObserver(callable $observer): bool
stats(): array
status(string $name): array
synchronized(string $name, callable $callback, ?float $ttl?, ?float $wait?): mixed
tryAcquirePermits(string $name, int $limit, int $permits?, ?float $ttl?, ?string $token?): ?DistLock\Lock
tryLock(string $name, ?float $ttl?, ?string $token?): ?DistLock\Lock
tryLockAll(array $names, ?float $ttl?): ?array
tryLockExclusive(string $name, ?float $ttl?, ?string $token?): ?DistLock\Lock
tryLockShared(string $name, ?float $ttl?, ?string $token?): ?DistLock\Lock
--
demote: bool
detach: string
fencingToken: ?int
isAcquired: bool
name: string
promote: bool
refresh: bool
release: bool
remainingLifetime: float
token: string
DistLock::__construct $servers sensitive=1
DistLock::__construct $options sensitive=1
DistLock::restore $token sensitive=1
DistLock::lock $token sensitive=1
DistLock::tryLock $token sensitive=1
DistLock::release $token sensitive=1
DistLock::refresh $token sensitive=1
DistLock::restoreShared $token sensitive=1
DistLock::restoreExclusive $token sensitive=1
DistLock::lockShared $token sensitive=1
DistLock::tryLockShared $token sensitive=1
DistLock::lockExclusive $token sensitive=1
DistLock::tryLockExclusive $token sensitive=1
DistLock::acquirePermits $token sensitive=1
DistLock::tryAcquirePermits $token sensitive=1
DistLock::restorePermits $token sensitive=1
