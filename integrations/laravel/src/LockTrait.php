<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use Illuminate\Container\Container;

/**
 * Drop-in for the Redis lock trait of the usual articles: same properties,
 * methods, arguments, return values, keys and values (SET key identifier
 * EX n NX; compare-and-delete release), so old and new code exclude each
 * other during a deploy. Backed by the distlock extension:
 *  - owners are 128-bit CSPRNG tokens, not uniqid();
 *  - waiting blocks until the release wakes it (no sleep(0.2) busy loop);
 *  - fractional seconds are honoured (no whole-second time() deadline);
 *  - a network error throws \DistLock\ConnectionException instead of
 *    looking like "not acquired";
 *  - baseUnLock() returns whether it released.
 * No $this->redis is needed: the client comes from the container
 * (DistLockServiceProvider::TRAIT_CLIENT, prefix '': keys are full keys).
 *
 * Add a resource of your own the same way:
 *   public $order_lock = "lock:order:";
 *   public function lockOrder($order_id) { return $this->baseLock($this->order_lock . $order_id, 4, 2); }
 *   public function unLockOrder($order_id, $identifier) { return $this->baseUnLock($this->order_lock . $order_id, $identifier); }
 */
trait LockTrait
{
    public $account_lock = "lock:account:";
    public $course_lock = "lock:course:";
    public $teacher_lock = "lock:teacher:";

    /** @return string|false owner identifier, false when not acquired within 2 s (lease 4 s) */
    public function lockAccount($uid)
    {
        return $this->baseLock($this->account_lock . $uid, 4, 2);
    }

    /** @return bool true when it was held by $identifier and is now free */
    public function unLockAccount($uid, $identifier)
    {
        return $this->baseUnLock($this->account_lock . $uid, $identifier);
    }

    /** @return string|false owner identifier, false when not acquired within 2 s (lease 4 s) */
    public function lockCourse($course_id)
    {
        return $this->baseLock($this->course_lock . $course_id, 4, 2);
    }

    /** @return bool true when it was held by $identifier and is now free */
    public function unCourse($course_id, $identifier)
    {
        return $this->baseUnLock($this->course_lock . $course_id, $identifier);
    }

    /** unCourse() under the name people guess: unLockCourse(), like unLockAccount() and unLockTeacher(). */
    public function unLockCourse($course_id, $identifier)
    {
        return $this->unCourse($course_id, $identifier);
    }

    /** @return string|false owner identifier, false when not acquired within 2 s (lease 4 s) */
    public function lockTeacher($tid)
    {
        return $this->baseLock($this->teacher_lock . $tid, 4, 2);
    }

    /** @return bool true when it was held by $identifier and is now free */
    public function unLockTeacher($tid, $identifier)
    {
        return $this->baseUnLock($this->teacher_lock . $tid, $identifier);
    }

    /**
     * Takes $key (the full Redis key), waiting up to $retry_time seconds.
     * The lease outlives this object and the request (release it with
     * baseUnLock(), or it expires after $expire_time).
     *
     * @param string    $key
     * @param int|float $expire_time lease, s (> 0)
     * @param int|float $retry_time  max wait, s (0 = one attempt)
     * @return string|false the owner identifier (32 hex chars), false when the wait ran out,
     *   or was refused because it would deadlock (\DistLock\DeadlockException, a
     *   \DistLock\LockTimeoutException: release what you hold and retry)
     * @throws \DistLock\ConnectionException on network errors
     * @throws \ValueError on a bad key or durations
     */
    public function baseLock($key, $expire_time, $retry_time)
    {
        try {
            $lease = $this->distLockClient()->lock((string) $key, (float) $expire_time, max(0.0, (float) $retry_time));
        } catch (\DistLock\LockTimeoutException) {
            return false;
        }
        return $lease->detach();
    }

    /**
     * Owner-checked release (compare-and-delete) of $key.
     *
     * @return bool true when $key was held by $identifier and is now free
     * @throws \DistLock\ConnectionException on network errors
     */
    public function baseUnLock($key, $identifier)
    {
        if (!is_string($identifier) || $identifier === '') {
            return false; // e.g. the false of a failed baseLock()
        }
        return $this->distLockClient()->release((string) $key, $identifier);
    }

    /** The client; override to use another one. */
    protected function distLockClient(): \DistLock
    {
        return Container::getInstance()->make(DistLockServiceProvider::TRAIT_CLIENT);
    }
}
