/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: 2bd93f498a9c65b21bdaaac3af02e6615125d4a9 */

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

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_addObserver, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, observer, IS_CALLABLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_DistLock_removeObserver, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, observer, IS_CALLABLE, 0)
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

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_DistLock_Event___construct, 0, 0, 0)
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
ZEND_METHOD(DistLock, addObserver);
ZEND_METHOD(DistLock, removeObserver);
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
ZEND_METHOD(DistLock_Event, __construct);


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
	ZEND_ME(DistLock, addObserver, arginfo_class_DistLock_addObserver, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(DistLock, removeObserver, arginfo_class_DistLock_removeObserver, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
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


static const zend_function_entry class_DistLock_Event_methods[] = {
	ZEND_ME(DistLock_Event, __construct, arginfo_class_DistLock_Event___construct, ZEND_ACC_PRIVATE)
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


static const zend_function_entry class_DistLock_DeadlockException_methods[] = {
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


static const zend_function_entry class_DistLock_PermissionException_methods[] = {
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

static zend_class_entry *register_class_DistLock_Event(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "Event", class_DistLock_Event_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_operation_default_value;
	ZVAL_UNDEF(&property_operation_default_value);
	zend_string *property_operation_name = zend_string_init("operation", sizeof("operation") - 1, 1);
	zend_declare_typed_property(class_entry, property_operation_name, &property_operation_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_operation_name);

	zval property_kind_default_value;
	ZVAL_UNDEF(&property_kind_default_value);
	zend_string *property_kind_name = zend_string_init("kind", sizeof("kind") - 1, 1);
	zend_declare_typed_property(class_entry, property_kind_name, &property_kind_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_kind_name);

	zval property_name_default_value;
	ZVAL_UNDEF(&property_name_default_value);
	zend_string *property_name_name = zend_string_init("name", sizeof("name") - 1, 1);
	zend_declare_typed_property(class_entry, property_name_name, &property_name_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_name_name);

	zval property_names_default_value;
	ZVAL_UNDEF(&property_names_default_value);
	zend_string *property_names_name = zend_string_init("names", sizeof("names") - 1, 1);
	zend_declare_typed_property(class_entry, property_names_name, &property_names_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_ARRAY));
	zend_string_release(property_names_name);

	zval property_outcome_default_value;
	ZVAL_UNDEF(&property_outcome_default_value);
	zend_string *property_outcome_name = zend_string_init("outcome", sizeof("outcome") - 1, 1);
	zend_declare_typed_property(class_entry, property_outcome_name, &property_outcome_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_outcome_name);

	zval property_startNs_default_value;
	ZVAL_UNDEF(&property_startNs_default_value);
	zend_string *property_startNs_name = zend_string_init("startNs", sizeof("startNs") - 1, 1);
	zend_declare_typed_property(class_entry, property_startNs_name, &property_startNs_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_startNs_name);

	zval property_callNs_default_value;
	ZVAL_UNDEF(&property_callNs_default_value);
	zend_string *property_callNs_name = zend_string_init("callNs", sizeof("callNs") - 1, 1);
	zend_declare_typed_property(class_entry, property_callNs_name, &property_callNs_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_callNs_name);

	zval property_waitNs_default_value;
	ZVAL_UNDEF(&property_waitNs_default_value);
	zend_string *property_waitNs_name = zend_string_init("waitNs", sizeof("waitNs") - 1, 1);
	zend_declare_typed_property(class_entry, property_waitNs_name, &property_waitNs_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_waitNs_name);

	zval property_roundTrips_default_value;
	ZVAL_UNDEF(&property_roundTrips_default_value);
	zend_string *property_roundTrips_name = zend_string_init("roundTrips", sizeof("roundTrips") - 1, 1);
	zend_declare_typed_property(class_entry, property_roundTrips_name, &property_roundTrips_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_roundTrips_name);

	zval property_server_default_value;
	ZVAL_UNDEF(&property_server_default_value);
	zend_string *property_server_name = zend_string_init("server", sizeof("server") - 1, 1);
	zend_declare_typed_property(class_entry, property_server_name, &property_server_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING|MAY_BE_NULL));
	zend_string_release(property_server_name);

	zval property_fencingToken_default_value;
	ZVAL_UNDEF(&property_fencingToken_default_value);
	zend_string *property_fencingToken_name = zend_string_init("fencingToken", sizeof("fencingToken") - 1, 1);
	zend_declare_typed_property(class_entry, property_fencingToken_name, &property_fencingToken_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG|MAY_BE_NULL));
	zend_string_release(property_fencingToken_name);

	zval property_ttl_default_value;
	ZVAL_UNDEF(&property_ttl_default_value);
	zend_string *property_ttl_name = zend_string_init("ttl", sizeof("ttl") - 1, 1);
	zend_declare_typed_property(class_entry, property_ttl_name, &property_ttl_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_DOUBLE|MAY_BE_NULL));
	zend_string_release(property_ttl_name);

	zval property_permits_default_value;
	ZVAL_UNDEF(&property_permits_default_value);
	zend_string *property_permits_name = zend_string_init("permits", sizeof("permits") - 1, 1);
	zend_declare_typed_property(class_entry, property_permits_name, &property_permits_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG|MAY_BE_NULL));
	zend_string_release(property_permits_name);

	zval property_heldNs_default_value;
	ZVAL_UNDEF(&property_heldNs_default_value);
	zend_string *property_heldNs_name = zend_string_init("heldNs", sizeof("heldNs") - 1, 1);
	zend_declare_typed_property(class_entry, property_heldNs_name, &property_heldNs_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG|MAY_BE_NULL));
	zend_string_release(property_heldNs_name);

	zval property_implicit_default_value;
	ZVAL_UNDEF(&property_implicit_default_value);
	zend_string *property_implicit_name = zend_string_init("implicit", sizeof("implicit") - 1, 1);
	zend_declare_typed_property(class_entry, property_implicit_name, &property_implicit_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_BOOL));
	zend_string_release(property_implicit_name);

	zval property_error_default_value;
	ZVAL_UNDEF(&property_error_default_value);
	zend_string *property_error_name = zend_string_init("error", sizeof("error") - 1, 1);
	zend_declare_typed_property(class_entry, property_error_name, &property_error_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING|MAY_BE_NULL));
	zend_string_release(property_error_name);

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

static zend_class_entry *register_class_DistLock_DeadlockException(zend_class_entry *class_entry_DistLock_LockTimeoutException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "DeadlockException", class_DistLock_DeadlockException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_LockTimeoutException);

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

static zend_class_entry *register_class_DistLock_PermissionException(zend_class_entry *class_entry_DistLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "DistLock", "PermissionException", class_DistLock_PermissionException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_DistLock_Exception);

	return class_entry;
}
