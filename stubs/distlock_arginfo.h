/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: 9fa9a3e8819c70471cd347dbb9a77c94b7107f8d */

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_DistLock___construct, 0, 0, 0)
	ZEND_ARG_TYPE_MASK(0, servers, MAY_BE_STRING|MAY_BE_ARRAY, "\"redis://127.0.0.1:6379\"")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_DistLock_lock, 0, 1, DistLock\\Lock, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, token, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_DistLock_tryLock, 0, 1, DistLock\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, token, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_lockShared arginfo_class_DistLock_lock

#define arginfo_class_DistLock_tryLockShared arginfo_class_DistLock_tryLock

#define arginfo_class_DistLock_lockExclusive arginfo_class_DistLock_lock

#define arginfo_class_DistLock_tryLockExclusive arginfo_class_DistLock_tryLock

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_DistLock_acquirePermits, 0, 2, DistLock\\Lock, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, limit, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, permits, IS_LONG, 0, "1")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, token, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_DistLock_tryAcquirePermits, 0, 2, DistLock\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, limit, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, permits, IS_LONG, 0, "1")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, token, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_DistLock_restorePermits, 0, 2, DistLock\\Lock, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_permits, 0, 1, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_lockAll, 0, 1, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(0, names, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_tryLockAll, 0, 1, IS_ARRAY, 1)
	ZEND_ARG_TYPE_INFO(0, names, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_releaseAll, 0, 1, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, locks, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_synchronized, 0, 2, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, callback, IS_CALLABLE, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_restore arginfo_class_DistLock_restorePermits

#define arginfo_class_DistLock_restoreShared arginfo_class_DistLock_restorePermits

#define arginfo_class_DistLock_restoreExclusive arginfo_class_DistLock_restorePermits

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_release, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_refresh, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_owner, 0, 1, IS_STRING, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_status arginfo_class_DistLock_permits

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_isLocked, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_forceRelease arginfo_class_DistLock_isLocked

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_stats, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_endRequest, 0, 0, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock___call, 0, 2, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, method, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, args, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_Lock_name, 0, 0, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_Lock_token arginfo_class_DistLock_Lock_name

#define arginfo_class_DistLock_Lock_detach arginfo_class_DistLock_Lock_name

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_Lock_release, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_Lock_refresh, 0, 0, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_Lock_isAcquired arginfo_class_DistLock_Lock_release

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_Lock_remainingLifetime, 0, 0, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_DistLock_Lock_promote arginfo_class_DistLock_Lock_refresh

#define arginfo_class_DistLock_Lock_demote arginfo_class_DistLock_Lock_refresh

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_Lock_fencingToken, 0, 0, IS_LONG, 1)
ZEND_END_ARG_INFO()


ZEND_METHOD(DistLock, __construct);
ZEND_METHOD(DistLock, lock);
ZEND_METHOD(DistLock, tryLock);
ZEND_METHOD(DistLock, lockShared);
ZEND_METHOD(DistLock, tryLockShared);
ZEND_METHOD(DistLock, lockExclusive);
ZEND_METHOD(DistLock, tryLockExclusive);
ZEND_METHOD(DistLock, acquirePermits);
ZEND_METHOD(DistLock, tryAcquirePermits);
ZEND_METHOD(DistLock, restorePermits);
ZEND_METHOD(DistLock, permits);
ZEND_METHOD(DistLock, lockAll);
ZEND_METHOD(DistLock, tryLockAll);
ZEND_METHOD(DistLock, releaseAll);
ZEND_METHOD(DistLock, synchronized);
ZEND_METHOD(DistLock, restore);
ZEND_METHOD(DistLock, restoreShared);
ZEND_METHOD(DistLock, restoreExclusive);
ZEND_METHOD(DistLock, release);
ZEND_METHOD(DistLock, refresh);
ZEND_METHOD(DistLock, owner);
ZEND_METHOD(DistLock, status);
ZEND_METHOD(DistLock, isLocked);
ZEND_METHOD(DistLock, forceRelease);
ZEND_METHOD(DistLock, stats);
ZEND_METHOD(DistLock, endRequest);
ZEND_METHOD(DistLock, __call);
ZEND_METHOD(DistLock_Lock, name);
ZEND_METHOD(DistLock_Lock, token);
ZEND_METHOD(DistLock_Lock, detach);
ZEND_METHOD(DistLock_Lock, release);
ZEND_METHOD(DistLock_Lock, refresh);
ZEND_METHOD(DistLock_Lock, isAcquired);
ZEND_METHOD(DistLock_Lock, remainingLifetime);
ZEND_METHOD(DistLock_Lock, promote);
ZEND_METHOD(DistLock_Lock, demote);
ZEND_METHOD(DistLock_Lock, fencingToken);


static const zend_function_entry class_DistLock_methods[] = {
	ZEND_ME(DistLock, __construct, arginfo_class_DistLock___construct, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, lock, arginfo_class_DistLock_lock, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, tryLock, arginfo_class_DistLock_tryLock, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, lockShared, arginfo_class_DistLock_lockShared, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, tryLockShared, arginfo_class_DistLock_tryLockShared, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, lockExclusive, arginfo_class_DistLock_lockExclusive, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, tryLockExclusive, arginfo_class_DistLock_tryLockExclusive, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, acquirePermits, arginfo_class_DistLock_acquirePermits, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, tryAcquirePermits, arginfo_class_DistLock_tryAcquirePermits, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, restorePermits, arginfo_class_DistLock_restorePermits, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, permits, arginfo_class_DistLock_permits, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, lockAll, arginfo_class_DistLock_lockAll, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, tryLockAll, arginfo_class_DistLock_tryLockAll, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, releaseAll, arginfo_class_DistLock_releaseAll, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, synchronized, arginfo_class_DistLock_synchronized, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, restore, arginfo_class_DistLock_restore, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, restoreShared, arginfo_class_DistLock_restoreShared, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, restoreExclusive, arginfo_class_DistLock_restoreExclusive, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, release, arginfo_class_DistLock_release, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, refresh, arginfo_class_DistLock_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, owner, arginfo_class_DistLock_owner, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, status, arginfo_class_DistLock_status, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, isLocked, arginfo_class_DistLock_isLocked, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, forceRelease, arginfo_class_DistLock_forceRelease, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, stats, arginfo_class_DistLock_stats, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock, endRequest, arginfo_class_DistLock_endRequest, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(DistLock, __call, arginfo_class_DistLock___call, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_Lock_methods[] = {
	ZEND_ME(DistLock_Lock, name, arginfo_class_DistLock_Lock_name, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, token, arginfo_class_DistLock_Lock_token, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, detach, arginfo_class_DistLock_Lock_detach, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, release, arginfo_class_DistLock_Lock_release, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, refresh, arginfo_class_DistLock_Lock_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, isAcquired, arginfo_class_DistLock_Lock_isAcquired, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, remainingLifetime, arginfo_class_DistLock_Lock_remainingLifetime, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, promote, arginfo_class_DistLock_Lock_promote, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, demote, arginfo_class_DistLock_Lock_demote, ZEND_ACC_PUBLIC)
	ZEND_ME(DistLock_Lock, fencingToken, arginfo_class_DistLock_Lock_fencingToken, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_Exception_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_ConnectionException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_LockTimeoutException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_LockLostException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_QuorumException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_ReplicationException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_DistLock_LockKindException_methods[] = {
	ZEND_FE_END
};

static zend_class_entry *register_class_DistLock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_CLASS_ENTRY(ce, "DistLock", class_DistLock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;
#if (PHP_VERSION_ID >= 80200)


	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "__construct", sizeof("__construct") - 1), 0, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "__construct", sizeof("__construct") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "lock", sizeof("lock") - 1), 3, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "trylock", sizeof("trylock") - 1), 2, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "lockshared", sizeof("lockshared") - 1), 3, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "trylockshared", sizeof("trylockshared") - 1), 2, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "lockexclusive", sizeof("lockexclusive") - 1), 3, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "trylockexclusive", sizeof("trylockexclusive") - 1), 2, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "acquirepermits", sizeof("acquirepermits") - 1), 5, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "tryacquirepermits", sizeof("tryacquirepermits") - 1), 4, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "restorepermits", sizeof("restorepermits") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "restore", sizeof("restore") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "restoreshared", sizeof("restoreshared") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "restoreexclusive", sizeof("restoreexclusive") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "release", sizeof("release") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "refresh", sizeof("refresh") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);

	zend_add_parameter_attribute(zend_hash_str_find_ptr(&class_entry->function_table, "__call", sizeof("__call") - 1), 1, ZSTR_KNOWN(ZEND_STR_SENSITIVEPARAMETER), 0);
#endif

	return class_entry;
}

static zend_class_entry *register_class_DistLock_Lock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "Lock", class_DistLock_Lock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	return class_entry;
}

static zend_class_entry *register_class_DistLock_Exception(zend_class_entry *class_entry_RuntimeException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "Exception", class_DistLock_Exception_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RuntimeException);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_ConnectionException(zend_class_entry *class_entry_DistLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "ConnectionException", class_DistLock_ConnectionException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_Exception);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_LockTimeoutException(zend_class_entry *class_entry_DistLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "LockTimeoutException", class_DistLock_LockTimeoutException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_Exception);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_LockLostException(zend_class_entry *class_entry_DistLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "LockLostException", class_DistLock_LockLostException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_Exception);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_QuorumException(zend_class_entry *class_entry_DistLock_ConnectionException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "QuorumException", class_DistLock_QuorumException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_ConnectionException);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_ReplicationException(zend_class_entry *class_entry_DistLock_ConnectionException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "ReplicationException", class_DistLock_ReplicationException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_ConnectionException);

	return class_entry;
}

static zend_class_entry *register_class_DistLock_LockKindException(zend_class_entry *class_entry_LogicException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "LockKindException", class_DistLock_LockKindException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_LogicException);

	return class_entry;
}
