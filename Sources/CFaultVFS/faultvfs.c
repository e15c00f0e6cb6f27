// See include/CFaultVFS.h.
#include "CFaultVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// An open file: our header, then the wrapped VFS's own file object (szOsFile bytes) right after it.
typedef struct FaultFile {
    sqlite3_file base;
    /// The wrapped file (points just past this struct).
    sqlite3_file *real;
    /// The file's full path; SQLite keeps the string alive until xClose.
    const char *name;
} FaultFile;

static pthread_mutex_t faultLock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *realVfs = NULL;
static int installed = 0;
static int armed = 0;
static char *armedPrefix = NULL;
static size_t armedPrefixLength = 0;
static cfaultvfs_operation armedOperation = CFAULTVFS_WRITE;
static int armedCountdown = 0;
static int armedPersistent = 0;
static int armedCode = SQLITE_IOERR;
static int seen = 0;
static int fired = 0;

/// Returns 0, or the result code the current operation must fail with.
static int injectedFault(FaultFile *file, cfaultvfs_operation operation) {
    int code = 0;
    pthread_mutex_lock(&faultLock);
    if (armed && operation == armedOperation && file->name != NULL && armedPrefix != NULL
        && strncmp(file->name, armedPrefix, armedPrefixLength) == 0) {
        int index = seen++;
        if (index == armedCountdown || (armedPersistent && index > armedCountdown)) {
            fired++;
            code = armedCode;
        }
    }
    pthread_mutex_unlock(&faultLock);
    return code;
}

// MARK: File methods (forwarded, with faults on read, write, truncate and sync)

static int faultClose(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    int rc = SQLITE_OK;
    if (file->real->pMethods != NULL) rc = file->real->pMethods->xClose(file->real);
    return rc;
}

static int faultRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    int code = injectedFault(file, CFAULTVFS_READ);
    if (code != 0) return code;
    return file->real->pMethods->xRead(file->real, buffer, amount, offset);
}

static int faultWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    int code = injectedFault(file, CFAULTVFS_WRITE);
    if (code != 0) return code;
    return file->real->pMethods->xWrite(file->real, buffer, amount, offset);
}

static int faultTruncate(sqlite3_file *f, sqlite3_int64 size) {
    FaultFile *file = (FaultFile *)f;
    int code = injectedFault(file, CFAULTVFS_WRITE);
    if (code != 0) return code;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int faultSync(sqlite3_file *f, int flags) {
    FaultFile *file = (FaultFile *)f;
    int code = injectedFault(file, CFAULTVFS_SYNC);
    if (code != 0) return code;
    return file->real->pMethods->xSync(file->real, flags);
}

static int faultFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int faultLockFile(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}

static int faultUnlockFile(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int faultCheckReservedLock(sqlite3_file *f, int *result) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int faultFileControl(sqlite3_file *f, int op, void *argument) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int faultSectorSize(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int faultDeviceCharacteristics(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int faultShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **pointer) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion < 2 || file->real->pMethods->xShmMap == NULL) return SQLITE_IOERR_SHMMAP;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, pointer);
}

static int faultShmLock(sqlite3_file *f, int offset, int count, int flags) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion < 2 || file->real->pMethods->xShmLock == NULL) return SQLITE_IOERR_SHMLOCK;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void faultShmBarrier(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion >= 2 && file->real->pMethods->xShmBarrier != NULL) {
        file->real->pMethods->xShmBarrier(file->real);
    }
}

static int faultShmUnmap(sqlite3_file *f, int deleteFlag) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion < 2 || file->real->pMethods->xShmUnmap == NULL) return SQLITE_OK;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int faultFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **pointer) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion < 3 || file->real->pMethods->xFetch == NULL) {
        *pointer = NULL;
        return SQLITE_OK;
    }
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int faultUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *pointer) {
    FaultFile *file = (FaultFile *)f;
    if (file->real->pMethods->iVersion < 3 || file->real->pMethods->xUnfetch == NULL) return SQLITE_OK;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

static const sqlite3_io_methods faultMethods = {
    3,
    faultClose,
    faultRead,
    faultWrite,
    faultTruncate,
    faultSync,
    faultFileSize,
    faultLockFile,
    faultUnlockFile,
    faultCheckReservedLock,
    faultFileControl,
    faultSectorSize,
    faultDeviceCharacteristics,
    faultShmMap,
    faultShmLock,
    faultShmBarrier,
    faultShmUnmap,
    faultFetch,
    faultUnfetch,
};

// MARK: VFS methods (forwarded to the wrapped VFS, which gets itself as its VFS argument)

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)f;
    file->real = (sqlite3_file *)&file[1];
    file->name = name;
    int rc = realVfs->xOpen(realVfs, name, file->real, flags, outFlags);
    // SQLite calls xClose whenever pMethods is set, even after a failed open; mirror the wrapped file.
    file->base.pMethods = file->real->pMethods != NULL ? &faultMethods : NULL;
    return rc;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return realVfs->xDelete(realVfs, name, syncDirectory);
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return realVfs->xAccess(realVfs, name, flags, result);
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return realVfs->xFullPathname(realVfs, name, size, output);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return realVfs->xDlOpen(realVfs, name);
}

static void faultDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    realVfs->xDlError(realVfs, size, message);
}

static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return realVfs->xDlSym(realVfs, handle, symbol);
}

static void faultDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    realVfs->xDlClose(realVfs, handle);
}

static int faultRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return realVfs->xRandomness(realVfs, size, output);
}

static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVfs->xSleep(realVfs, microseconds);
}

static int faultCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return realVfs->xCurrentTime(realVfs, now);
}

static int faultGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return realVfs->xGetLastError != NULL ? realVfs->xGetLastError(realVfs, size, message) : 0;
}

static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    if (realVfs->iVersion >= 2 && realVfs->xCurrentTimeInt64 != NULL) return realVfs->xCurrentTimeInt64(realVfs, now);
    double days = 0;
    int rc = realVfs->xCurrentTime(realVfs, &days);
    *now = (sqlite3_int64)(days * 86400000.0);
    return rc;
}

static sqlite3_vfs faultVfs;

int cfaultvfs_install(void) {
    pthread_mutex_lock(&faultLock);
    if (installed) {
        pthread_mutex_unlock(&faultLock);
        return SQLITE_OK;
    }
    int rc = sqlite3_initialize();
    if (rc == SQLITE_OK) {
        realVfs = sqlite3_vfs_find(NULL);
        if (realVfs == NULL) rc = SQLITE_ERROR;
    }
    if (rc == SQLITE_OK) {
        memset(&faultVfs, 0, sizeof faultVfs);
        faultVfs.iVersion = 2;
        faultVfs.szOsFile = (int)sizeof(FaultFile) + realVfs->szOsFile;
        faultVfs.mxPathname = realVfs->mxPathname;
        faultVfs.zName = "objectgraph-fault";
        faultVfs.xOpen = faultOpen;
        faultVfs.xDelete = faultDelete;
        faultVfs.xAccess = faultAccess;
        faultVfs.xFullPathname = faultFullPathname;
        faultVfs.xDlOpen = faultDlOpen;
        faultVfs.xDlError = faultDlError;
        faultVfs.xDlSym = faultDlSym;
        faultVfs.xDlClose = faultDlClose;
        faultVfs.xRandomness = faultRandomness;
        faultVfs.xSleep = faultSleep;
        faultVfs.xCurrentTime = faultCurrentTime;
        faultVfs.xGetLastError = faultGetLastError;
        faultVfs.xCurrentTimeInt64 = faultCurrentTimeInt64;
        rc = sqlite3_vfs_register(&faultVfs, 1);
    }
    if (rc == SQLITE_OK) installed = 1;
    pthread_mutex_unlock(&faultLock);
    return rc;
}

void cfaultvfs_arm(const char *path_prefix, cfaultvfs_operation operation, int countdown, int persistent,
    int result_code) {
    pthread_mutex_lock(&faultLock);
    free(armedPrefix);
    armedPrefix = path_prefix != NULL ? strdup(path_prefix) : NULL;
    armedPrefixLength = armedPrefix != NULL ? strlen(armedPrefix) : 0;
    armedOperation = operation;
    armedCountdown = countdown;
    armedPersistent = persistent;
    armedCode = result_code;
    seen = 0;
    fired = 0;
    armed = armedPrefix != NULL;
    pthread_mutex_unlock(&faultLock);
}

void cfaultvfs_disarm(void) {
    pthread_mutex_lock(&faultLock);
    armed = 0;
    pthread_mutex_unlock(&faultLock);
}

int cfaultvfs_faults_fired(void) {
    pthread_mutex_lock(&faultLock);
    int result = fired;
    pthread_mutex_unlock(&faultLock);
    return result;
}

int cfaultvfs_operations_seen(void) {
    pthread_mutex_lock(&faultLock);
    int result = seen;
    pthread_mutex_unlock(&faultLock);
    return result;
}
