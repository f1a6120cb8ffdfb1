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

// FareboxUSDMetaData contains all meta data concerning the FareboxUSD contract.
var FareboxUSDMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"AuthorizationUsed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DOMAIN_SEPARATOR\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"TRANSFER_WITH_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"authorizationState\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"version\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "FareboxUSD",
	Bin: "0x608060405234801561000f575f5ffd5b506040516115ff3803806115ff83398101604081905261002e9161010c565b5f610039848261021f565b506001610046838261021f565b506002610053828261021f565b5050600380546001600160a01b03191633179055506102d99050565b634e487b7160e01b5f52604160045260245ffd5b5f82601f830112610092575f5ffd5b81516001600160401b038111156100ab576100ab61006f565b604051601f8201601f19908116603f011681016001600160401b03811182821017156100d9576100d961006f565b6040528181528382016020018510156100f0575f5ffd5b8160208501602083015e5f918101602001919091529392505050565b5f5f5f6060848603121561011e575f5ffd5b83516001600160401b03811115610133575f5ffd5b61013f86828701610083565b602086015190945090506001600160401b0381111561015c575f5ffd5b61016886828701610083565b604086015190935090506001600160401b03811115610185575f5ffd5b61019186828701610083565b9150509250925092565b600181811c908216806101af57607f821691505b6020821081036101cd57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561021a57805f5260205f20601f840160051c810160208510156101f85750805b601f840160051c820191505b81811015610217575f8155600101610204565b50505b505050565b81516001600160401b038111156102385761023861006f565b61024c81610246845461019b565b846101d3565b6020601f82116001811461027e575f83156102675750848201515b5f19600385901b1c1916600184901b178455610217565b5f84815260208120601f198516915b828110156102ad578785015182556020948501946001909201910161028d565b50848210156102ca57868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b611319806102e65f395ff3fe608060405234801561000f575f5ffd5b5060043610610106575f3560e01c806370a082311161009e578063a9059cbb1161006e578063a9059cbb1461022d578063cf09299514610240578063dd62ed3e14610253578063e3ee160e1461027d578063e94a010214610290575f5ffd5b806370a08231146101b45780638da5cb5b146101d357806395d89b41146101fe578063a0cc6a6814610206575f5ffd5b8063313ce567116100d9578063313ce567146101755780633644e5151461018f57806340c10f191461019757806354fd4d50146101ac575f5ffd5b806306fdde031461010a578063095ea7b31461012857806318160ddd1461014b57806323b872dd14610162575b5f5ffd5b6101126102c8565b60405161011f9190610f21565b60405180910390f35b61013b610136366004610f4e565b610353565b604051901515815260200161011f565b61015460045481565b60405190815260200161011f565b61013b610170366004610f76565b6103bf565b61017d600681565b60405160ff909116815260200161011f565b610154610496565b6101aa6101a5366004610f4e565b610527565b005b610112610675565b6101546101c2366004610fb0565b60056020525f908152604090205481565b6003546101e6906001600160a01b031681565b6040516001600160a01b03909116815260200161011f565b610112610682565b6101547f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226781565b61013b61023b366004610f4e565b61068f565b6101aa61024e366004610fdd565b6106a4565b6101546102613660046110d5565b600660209081525f928352604080842090915290825290205481565b6101aa61028b366004611106565b6106bc565b61013b61029e366004610f4e565b6001600160a01b03919091165f908152600760209081526040808320938352929052205460ff1690565b5f80546102d490611188565b80601f016020809104026020016040519081016040528092919081815260200182805461030090611188565b801561034b5780601f106103225761010080835404028352916020019161034b565b820191905f5260205f20905b81548152906001019060200180831161032e57829003601f168201915b505050505081565b335f8181526006602090815260408083206001600160a01b038716808552925280832085905551919290917f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925906103ad9086815260200190565b60405180910390a35060015b92915050565b6001600160a01b0383165f908152600660209081526040808320338452909152812054808311156104485760405162461bcd60e51b815260206004820152602860248201527f45524332303a207472616e7366657220616d6f756e74206578636565647320616044820152676c6c6f77616e636560c01b60648201526084015b60405180910390fd5b5f19811461047e5761045a83826111d4565b6001600160a01b0386165f9081526006602090815260408083203384529091529020555b610489858585610717565b60019150505b9392505050565b5f7f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f5f6040516104c691906111e7565b604051809103902060016040516104dd91906111e7565b60408051918290038220602083019490945281019190915260608101919091524660808201523060a082015260c00160405160208183030381529060405280519060200120905090565b6003546001600160a01b0316331461058d5760405162461bcd60e51b815260206004820152602360248201527f46617265626f785553443a2063616c6c6572206973206e6f7420746865206f776044820152623732b960e91b606482015260840161043f565b6001600160a01b0382166105ef5760405162461bcd60e51b8152602060048201526024808201527f46617265626f785553443a206d696e7420746f20746865207a65726f206164646044820152637265737360e01b606482015260840161043f565b8060045f8282546106009190611283565b90915550506001600160a01b0382165f908152600560205260408120805483929061062c908490611283565b90915550506040518181526001600160a01b038316905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a35050565b600180546102d490611188565b600280546102d490611188565b5f61069b338484610717565b50600192915050565b6106b3878787878787876108ff565b50505050505050565b61070c89898989898988888b6040516020016106f893929190928352602083019190915260f81b6001600160f81b031916604082015260410190565b6040516020818303038152906040526108ff565b505050505050505050565b6001600160a01b03831661077b5760405162461bcd60e51b815260206004820152602560248201527f45524332303a207472616e736665722066726f6d20746865207a65726f206164604482015264647265737360d81b606482015260840161043f565b6001600160a01b0382166107dd5760405162461bcd60e51b815260206004820152602360248201527f45524332303a207472616e7366657220746f20746865207a65726f206164647260448201526265737360e81b606482015260840161043f565b6001600160a01b0383165f908152600560205260409020548111156108535760405162461bcd60e51b815260206004820152602660248201527f45524332303a207472616e7366657220616d6f756e7420657863656564732062604482015265616c616e636560d01b606482015260840161043f565b6001600160a01b0383165f908152600560205260408120805483929061087a9084906111d4565b90915550506001600160a01b0382165f90815260056020526040812080548392906108a6908490611283565b92505081905550816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef836040516108f291815260200190565b60405180910390a3505050565b8342116109625760405162461bcd60e51b815260206004820152602b60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e206973206e6f60448201526a1d081e595d081d985b1a5960aa1b606482015260840161043f565b8242106109bf5760405162461bcd60e51b815260206004820152602560248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e2069732065786044820152641c1a5c995960da1b606482015260840161043f565b6001600160a01b0387165f90815260076020908152604080832085845290915290205460ff1615610a495760405162461bcd60e51b815260206004820152602e60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e20697320757360448201526d1959081bdc8818d85b98d95b195960921b606482015260840161043f565b604080517f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a22676020808301919091526001600160a01b038a811683850152891660608301526080820188905260a0820187905260c0820186905260e08083018690528351808403909101815261010090920190925280519101205f610acb610496565b60405161190160f01b6020820152602281019190915260428101839052606201604051602081830303815290604052805190602001209050610b0e898285610bba565b610b5a5760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a20696e76616c6964207369676e61747572650000604482015260640161043f565b6001600160a01b0389165f818152600760209081526040808320888452909152808220805460ff19166001179055518692917f98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a591a361070c898989610717565b5f6001600160a01b0384163b15610cb1575f5f856001600160a01b0316631626ba7e60e01b8686604051602401610bf2929190611296565b60408051601f198184030181529181526020820180516001600160e01b03166001600160e01b0319909416939093179092529051610c3091906112b6565b5f60405180830381855afa9150503d805f8114610c68576040519150601f19603f3d011682016040523d82523d5f602084013e610c6d565b606091505b5091509150818015610c8157506020815110155b8015610ca857508051630b135d3f60e11b90610ca690830160209081019084016112cc565b145b9250505061048f565b836001600160a01b0316610cc58484610cd7565b6001600160a01b031614949350505050565b5f8151604114610d355760405162461bcd60e51b815260206004820152602360248201527f45435265636f7665723a20696e76616c6964207369676e6174757265206c656e6044820152620cee8d60eb1b606482015260840161043f565b6020820151604083015160608401515f1a7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0821115610dc55760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202773276044820152652076616c756560d01b606482015260840161043f565b8060ff16601b1480610dda57508060ff16601c145b610e355760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202776276044820152652076616c756560d01b606482015260840161043f565b604080515f8082526020820180845289905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa158015610e86573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b038116610ee95760405162461bcd60e51b815260206004820152601c60248201527f45435265636f7665723a20696e76616c6964207369676e617475726500000000604482015260640161043f565b9695505050505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f61048f6020830184610ef3565b80356001600160a01b0381168114610f49575f5ffd5b919050565b5f5f60408385031215610f5f575f5ffd5b610f6883610f33565b946020939093013593505050565b5f5f5f60608486031215610f88575f5ffd5b610f9184610f33565b9250610f9f60208501610f33565b929592945050506040919091013590565b5f60208284031215610fc0575f5ffd5b61048f82610f33565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f5f5f5f60e0888a031215610ff3575f5ffd5b610ffc88610f33565b965061100a60208901610f33565b955060408801359450606088013593506080880135925060a0880135915060c088013567ffffffffffffffff811115611041575f5ffd5b8801601f81018a13611051575f5ffd5b803567ffffffffffffffff81111561106b5761106b610fc9565b604051601f8201601f19908116603f0116810167ffffffffffffffff8111828210171561109a5761109a610fc9565b6040528181528282016020018c10156110b1575f5ffd5b816020840160208301375f6020838301015280935050505092959891949750929550565b5f5f604083850312156110e6575f5ffd5b6110ef83610f33565b91506110fd60208401610f33565b90509250929050565b5f5f5f5f5f5f5f5f5f6101208a8c03121561111f575f5ffd5b6111288a610f33565b985061113660208b01610f33565b975060408a0135965060608a0135955060808a0135945060a08a0135935060c08a013560ff81168114611167575f5ffd5b989b979a50959894979396929550929360e081013593506101000135919050565b600181811c9082168061119c57607f821691505b6020821081036111ba57634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156103b9576103b96111c0565b5f5f83545f8160011c9050600182168061120257607f821691505b60208210810361122057634e487b7160e01b5f52602260045260245ffd5b808015611234576001811461124957611277565b60ff1984168752821515830287019450611277565b5f888152602090205f5b8481101561126f57815489820152600190910190602001611253565b505082870194505b50929695505050505050565b808201808211156103b9576103b96111c0565b828152604060208201525f6112ae6040830184610ef3565b949350505050565b5f82518060208501845e5f920191825250919050565b5f602082840312156112dc575f5ffd5b505191905056fea26469706673582212202cc44c24f0c2db6666134298d2c399b6bc64444342cc75d6c633dafb5b56123764736f6c634300081e0033",
}

// FareboxUSD is an auto generated Go binding around an Ethereum contract.
type FareboxUSD struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *FareboxUSD) GetABI() abi.ABI {
	return c.abi
}

// NewFareboxUSD creates a new instance of FareboxUSD.
func NewFareboxUSD() *FareboxUSD {
	parsed, err := FareboxUSDMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &FareboxUSD{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *FareboxUSD) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string name_, string version_, string symbol_) returns()
func (fareboxUSD *FareboxUSD) PackConstructor(name_ string, version_ string, symbol_ string) []byte {
	enc, err := fareboxUSD.abi.Pack("", name_, version_, symbol_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSD *FareboxUSD) PackDOMAINSEPARATOR() []byte {
	enc, err := fareboxUSD.abi.Pack("DOMAIN_SEPARATOR")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSD *FareboxUSD) TryPackDOMAINSEPARATOR() ([]byte, error) {
	return fareboxUSD.abi.Pack("DOMAIN_SEPARATOR")
}

// UnpackDOMAINSEPARATOR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSD *FareboxUSD) UnpackDOMAINSEPARATOR(data []byte) ([32]byte, error) {
	out, err := fareboxUSD.abi.Unpack("DOMAIN_SEPARATOR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSD *FareboxUSD) PackTRANSFERWITHAUTHORIZATIONTYPEHASH() []byte {
	enc, err := fareboxUSD.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSD *FareboxUSD) TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return fareboxUSD.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
}

// UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa0cc6a68.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSD *FareboxUSD) UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := fareboxUSD.abi.Unpack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) PackAllowance(arg0 common.Address, arg1 common.Address) []byte {
	enc, err := fareboxUSD.abi.Pack("allowance", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) TryPackAllowance(arg0 common.Address, arg1 common.Address) ([]byte, error) {
	return fareboxUSD.abi.Pack("allowance", arg0, arg1)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := fareboxUSD.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := fareboxUSD.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSD.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) UnpackApprove(data []byte) (bool, error) {
	out, err := fareboxUSD.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSD *FareboxUSD) PackAuthorizationState(authorizer common.Address, nonce [32]byte) []byte {
	enc, err := fareboxUSD.abi.Pack("authorizationState", authorizer, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSD *FareboxUSD) TryPackAuthorizationState(authorizer common.Address, nonce [32]byte) ([]byte, error) {
	return fareboxUSD.abi.Pack("authorizationState", authorizer, nonce)
}

// UnpackAuthorizationState is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe94a0102.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSD *FareboxUSD) UnpackAuthorizationState(data []byte) (bool, error) {
	out, err := fareboxUSD.abi.Unpack("authorizationState", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) PackBalanceOf(arg0 common.Address) []byte {
	enc, err := fareboxUSD.abi.Pack("balanceOf", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) TryPackBalanceOf(arg0 common.Address) ([]byte, error) {
	return fareboxUSD.abi.Pack("balanceOf", arg0)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSD *FareboxUSD) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := fareboxUSD.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSD *FareboxUSD) PackDecimals() []byte {
	enc, err := fareboxUSD.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSD *FareboxUSD) TryPackDecimals() ([]byte, error) {
	return fareboxUSD.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSD *FareboxUSD) UnpackDecimals(data []byte) (uint8, error) {
	out, err := fareboxUSD.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (fareboxUSD *FareboxUSD) PackMint(to common.Address, amount *big.Int) []byte {
	enc, err := fareboxUSD.abi.Pack("mint", to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (fareboxUSD *FareboxUSD) TryPackMint(to common.Address, amount *big.Int) ([]byte, error) {
	return fareboxUSD.abi.Pack("mint", to, amount)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (fareboxUSD *FareboxUSD) PackName() []byte {
	enc, err := fareboxUSD.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (fareboxUSD *FareboxUSD) TryPackName() ([]byte, error) {
	return fareboxUSD.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (fareboxUSD *FareboxUSD) UnpackName(data []byte) (string, error) {
	out, err := fareboxUSD.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (fareboxUSD *FareboxUSD) PackOwner() []byte {
	enc, err := fareboxUSD.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (fareboxUSD *FareboxUSD) TryPackOwner() ([]byte, error) {
	return fareboxUSD.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (fareboxUSD *FareboxUSD) UnpackOwner(data []byte) (common.Address, error) {
	out, err := fareboxUSD.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSD *FareboxUSD) PackSymbol() []byte {
	enc, err := fareboxUSD.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSD *FareboxUSD) TryPackSymbol() ([]byte, error) {
	return fareboxUSD.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSD *FareboxUSD) UnpackSymbol(data []byte) (string, error) {
	out, err := fareboxUSD.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSD *FareboxUSD) PackTotalSupply() []byte {
	enc, err := fareboxUSD.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSD *FareboxUSD) TryPackTotalSupply() ([]byte, error) {
	return fareboxUSD.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSD *FareboxUSD) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := fareboxUSD.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := fareboxUSD.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSD.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) UnpackTransfer(data []byte) (bool, error) {
	out, err := fareboxUSD.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := fareboxUSD.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSD.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSD *FareboxUSD) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := fareboxUSD.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSD *FareboxUSD) PackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) []byte {
	enc, err := fareboxUSD.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSD *FareboxUSD) TryPackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) ([]byte, error) {
	return fareboxUSD.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
}

// PackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSD *FareboxUSD) PackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := fareboxUSD.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSD *FareboxUSD) TryPackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return fareboxUSD.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, v, r, s)
}

// PackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function version() view returns(string)
func (fareboxUSD *FareboxUSD) PackVersion() []byte {
	enc, err := fareboxUSD.abi.Pack("version")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function version() view returns(string)
func (fareboxUSD *FareboxUSD) TryPackVersion() ([]byte, error) {
	return fareboxUSD.abi.Pack("version")
}

// UnpackVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x54fd4d50.
//
// Solidity: function version() view returns(string)
func (fareboxUSD *FareboxUSD) UnpackVersion(data []byte) (string, error) {
	out, err := fareboxUSD.abi.Unpack("version", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// FareboxUSDApproval represents a Approval event raised by the FareboxUSD contract.
type FareboxUSDApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const FareboxUSDApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (FareboxUSDApproval) ContractEventName() string {
	return FareboxUSDApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (fareboxUSD *FareboxUSD) UnpackApprovalEvent(log *types.Log) (*FareboxUSDApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSD.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDApproval)
	if len(log.Data) > 0 {
		if err := fareboxUSD.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSD.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// FareboxUSDAuthorizationUsed represents a AuthorizationUsed event raised by the FareboxUSD contract.
type FareboxUSDAuthorizationUsed struct {
	Authorizer common.Address
	Nonce      [32]byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const FareboxUSDAuthorizationUsedEventName = "AuthorizationUsed"

// ContractEventName returns the user-defined event name.
func (FareboxUSDAuthorizationUsed) ContractEventName() string {
	return FareboxUSDAuthorizationUsedEventName
}

// UnpackAuthorizationUsedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)
func (fareboxUSD *FareboxUSD) UnpackAuthorizationUsedEvent(log *types.Log) (*FareboxUSDAuthorizationUsed, error) {
	event := "AuthorizationUsed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSD.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDAuthorizationUsed)
	if len(log.Data) > 0 {
		if err := fareboxUSD.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSD.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// FareboxUSDTransfer represents a Transfer event raised by the FareboxUSD contract.
type FareboxUSDTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const FareboxUSDTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (FareboxUSDTransfer) ContractEventName() string {
	return FareboxUSDTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (fareboxUSD *FareboxUSD) UnpackTransferEvent(log *types.Log) (*FareboxUSDTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSD.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDTransfer)
	if len(log.Data) > 0 {
		if err := fareboxUSD.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSD.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}
