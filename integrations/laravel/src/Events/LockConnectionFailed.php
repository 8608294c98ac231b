<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A lock operation failed on the network or the topology (outcome 'error': connection,
 * quorum or replication): $error is the exception's message (no secrets), $operation
 * the operation that failed, $server the node when one answered.
 */
final class LockConnectionFailed implements LockEvent
{
    use CarriesLockData;
}
