// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package token

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// DevWalletMetaData contains all meta data concerning the DevWallet contract.
var DevWalletMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"owners\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"execute\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isOwner\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"threshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "DevWallet",
	Bin: "0x608060405234801561000f575f5ffd5b506040516107d93803806107d983398101604081905261002e91610121565b5f8111801561003e575081518111155b61008e5760405162461bcd60e51b815260206004820152601860248201527f44657657616c6c65743a20626164207468726573686f6c640000000000000000604482015260640160405180910390fd5b5f5b82518110156100e85760015f5f8584815181106100af576100af6101f5565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff1916911515919091179055600101610090565b5060015550610209565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b038116811461011c575f5ffd5b919050565b5f5f60408385031215610132575f5ffd5b82516001600160401b03811115610147575f5ffd5b8301601f81018513610157575f5ffd5b80516001600160401b03811115610170576101706100f2565b604051600582901b90603f8201601f191681016001600160401b038111828210171561019e5761019e6100f2565b6040529182526020818401810192908101888411156101bb575f5ffd5b6020850194505b838510156101e1576101d385610106565b8152602094850194016101c2565b506020969096015195979596505050505050565b634e487b7160e01b5f52603260045260245ffd5b6105c3806102165f395ff3fe608060405234801561000f575f5ffd5b506004361061004a575f3560e01c80631626ba7e1461004e5780631cff79cd1461007f5780632f54bf6e1461009f57806342cde4e8146100d1575b5f5ffd5b61006161005c3660046103b0565b6100e8565b6040516001600160e01b031990911681526020015b60405180910390f35b61009261008d366004610488565b61027e565b6040516100769190610506565b6100c16100ad36600461053b565b5f6020819052908152604090205460ff1681565b6040519015158152602001610076565b6100da60015481565b604051908152602001610076565b5f60015460416100f8919061055b565b82511461010e57506001600160e01b0319610278565b5f805b60015481101561026b575f80808061012a85604161055b565b888101602081015160408201516060909201519096509094505f1a925090507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a083118061018a57508160ff16601b1415801561018a57508160ff16601c14155b156101a657506001600160e01b03199550610278945050505050565b604080515f808252602082018084528c905260ff851692820192909252606081018690526080810185905260019060a0016020604051602081039080840390855afa1580156101f7573d5f5f3e3d5ffd5b505050602060405103519050866001600160a01b0316816001600160a01b031611158061023c57506001600160a01b0381165f9081526020819052604090205460ff16155b1561025957506001600160e01b0319965061027895505050505050565b95505060019093019250610111915050565b50630b135d3f60e11b9150505b92915050565b335f9081526020819052604090205460609060ff166102ee5760405162461bcd60e51b815260206004820152602160248201527f44657657616c6c65743a2063616c6c6572206973206e6f7420616e206f776e656044820152603960f91b60648201526084015b60405180910390fd5b5f5f856001600160a01b0316858560405161030a92919061057e565b5f604051808303815f865af19150503d805f8114610343576040519150601f19603f3d011682016040523d82523d5f602084013e610348565b606091505b5091509150816103935760405162461bcd60e51b815260206004820152601660248201527511195d95d85b1b195d0e8818d85b1b0819985a5b195960521b60448201526064016102e5565b95945050505050565b634e487b7160e01b5f52604160045260245ffd5b5f5f604083850312156103c1575f5ffd5b82359150602083013567ffffffffffffffff8111156103de575f5ffd5b8301601f810185136103ee575f5ffd5b803567ffffffffffffffff8111156104085761040861039c565b604051601f8201601f19908116603f0116810167ffffffffffffffff811182821017156104375761043761039c565b60405281815282820160200187101561044e575f5ffd5b816020840160208301375f602083830101528093505050509250929050565b80356001600160a01b0381168114610483575f5ffd5b919050565b5f5f5f6040848603121561049a575f5ffd5b6104a38461046d565b9250602084013567ffffffffffffffff8111156104be575f5ffd5b8401601f810186136104ce575f5ffd5b803567ffffffffffffffff8111156104e4575f5ffd5b8660208284010111156104f5575f5ffd5b939660209190910195509293505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f6020828403121561054b575f5ffd5b6105548261046d565b9392505050565b808202811582820484141761027857634e487b7160e01b5f52601160045260245ffd5b818382375f910190815291905056fea26469706673582212203ef5bac3737c4836035bd1737a11156868eb3cd48b4143fc286be8a04a2e6ab664736f6c634300081e0033",
}

// DevWallet is an auto generated Go binding around an Ethereum contract.
type DevWallet struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DevWallet) GetABI() abi.ABI {
	return c.abi
}

// NewDevWallet creates a new instance of DevWallet.
func NewDevWallet() *DevWallet {
	parsed, err := DevWalletMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DevWallet{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DevWallet) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] owners, uint256 threshold_) returns()
func (devWallet *DevWallet) PackConstructor(owners []common.Address, threshold_ *big.Int) []byte {
	enc, err := devWallet.abi.Pack("", owners, threshold_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1cff79cd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) PackExecute(target common.Address, data []byte) []byte {
	enc, err := devWallet.abi.Pack("execute", target, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1cff79cd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) TryPackExecute(target common.Address, data []byte) ([]byte, error) {
	return devWallet.abi.Pack("execute", target, data)
}

// UnpackExecute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1cff79cd.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) UnpackExecute(data []byte) ([]byte, error) {
	out, err := devWallet.abi.Unpack("execute", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) PackIsOwner(arg0 common.Address) []byte {
	enc, err := devWallet.abi.Pack("isOwner", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) TryPackIsOwner(arg0 common.Address) ([]byte, error) {
	return devWallet.abi.Pack("isOwner", arg0)
}

// UnpackIsOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2f54bf6e.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) UnpackIsOwner(data []byte) (bool, error) {
	out, err := devWallet.abi.Unpack("isOwner", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) PackIsValidSignature(hash [32]byte, signature []byte) []byte {
	enc, err := devWallet.abi.Pack("isValidSignature", hash, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) TryPackIsValidSignature(hash [32]byte, signature []byte) ([]byte, error) {
	return devWallet.abi.Pack("isValidSignature", hash, signature)
}

// UnpackIsValidSignature is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) UnpackIsValidSignature(data []byte) ([4]byte, error) {
	out, err := devWallet.abi.Unpack("isValidSignature", data)
	if err != nil {
		return *new([4]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)
	return out0, nil
}

// PackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) PackThreshold() []byte {
	enc, err := devWallet.abi.Pack("threshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) TryPackThreshold() ([]byte, error) {
	return devWallet.abi.Pack("threshold")
}

// UnpackThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42cde4e8.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) UnpackThreshold(data []byte) (*big.Int, error) {
	out, err := devWallet.abi.Unpack("threshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}
