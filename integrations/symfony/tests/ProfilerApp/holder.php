<?php

declare(strict_types=1);

// holder.php RESOURCE SECONDS: takes RESOURCE through DistLockStore (as the test
// application does), prints "held", holds it SECONDS, releases it, exits.
// Run by Holder::start() with the extension and the application's environment.

use DistLock\Symfony\DistLockStore;
use Symfony\Component\Lock\LockFactory;

require __DIR__ . '/../bootstrap.php';

[, $resource, $seconds] = $argv;
$lock = (new LockFactory(new DistLockStore((string) getenv('DISTLOCK_TEST_REDIS'))))->createLock($resource, 30.0, false);
if (!$lock->acquire(true)) {
    fwrite(STDERR, "could not acquire $resource\n");
    exit(1);
}
echo "held\n";
usleep((int) ((float) $seconds * 1e6));
$lock->release();
